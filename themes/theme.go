// Package themes turns YAML skins into the styles every kws pane draws
// with. No pane hard-codes a colour: each asks its Theme for a semantic
// style (Border, ChatUser, DiffAdd, ...) and draws with Style.TCell.
//
// Skins are small YAML files in the spirit of k9s skins, but flat:
//
//	name: dark          # optional; must match the file name when given
//	extends: dark       # optional; start from another skin and override it
//	colors:             # optional named palette
//	  bg: "#1e1e2e"
//	  fg: "#cdd6f4"
//	  accent: "#89b4fa"
//	styles:
//	  base: {fg: fg, bg: bg}
//	  border_focused: {fg: accent, bold: true}
//
// A colour is a palette name, "#rrggbb" (quoted: an unquoted # starts a
// YAML comment), a colour name tcell knows ("red", "darkcyan"), a
// 256-colour index ("color123") or "default" (the terminal's own colour).
// Palette names are tried first, so a palette may redefine "red".
//
// Inheritance is per attribute: any attribute a style leaves out comes
// from its parent style, and a style that is absent is a copy of its
// parent. The parents form a tree rooted at base, listed by StyleKeys;
// for example border_focused falls back to border, then to base, and
// copy_cursor falls back to selection, then to base.
//
// Three skins are built in (dark, light and high-contrast). A file
// <dir>/<name>.yaml in a user skin folder, such as the one UserDir
// returns, overrides the built-in of the same name; with "extends" it
// can change a few styles of a built-in and keep the rest.
package themes

import "github.com/gdamore/tcell/v2"

// Style is one resolved look: colours and text attributes. The zero
// Style draws with the terminal's default colours and no attributes.
type Style struct {
	// Fg is the foreground (text) colour.
	Fg tcell.Color
	// Bg is the background colour.
	Bg tcell.Color
	// Bold draws the text bold.
	Bold bool
	// Italic draws the text in italics.
	Italic bool
	// Underline underlines the text.
	Underline bool
	// Reverse swaps foreground and background when drawn.
	Reverse bool
	// Dim draws the text with reduced intensity.
	Dim bool
}

// TCell returns the style as a tcell.Style ready for SetContent and
// tview's SetTextStyle family of methods.
func (s Style) TCell() tcell.Style {
	return tcell.StyleDefault.
		Foreground(s.Fg).
		Background(s.Bg).
		Bold(s.Bold).
		Italic(s.Italic).
		Underline(s.Underline).
		Reverse(s.Reverse).
		Dim(s.Dim)
}

// Theme is the palette of semantic styles every pane draws with. Each
// field's skin key is in its struct tag; the parent it inherits from is
// given in its comment and returned by StyleKeys. Fields are declared
// parents first, which is the order inheritance is resolved in.
type Theme struct {
	// Name is the skin name the theme was loaded under, such as "dark".
	Name string

	// Base is default text on the pane background; the root of inheritance.
	Base Style `skin:"base"`
	// Border is the frame of an unfocused pane (inherits base).
	Border Style `skin:"border" parent:"base" graphic:"true"`
	// BorderFocused is the frame of the focused pane (inherits border).
	BorderFocused Style `skin:"border_focused" parent:"border" graphic:"true"`
	// Title is the title of an unfocused pane (inherits base). Only its
	// foreground is drawn, over the frame's (border's) background.
	Title Style `skin:"title" parent:"base" on:"border"`
	// TitleFocused is the title of the focused pane (inherits title). Only
	// its foreground is drawn, over the focused frame's background, and
	// the status bar shows "kws" in it.
	TitleFocused Style `skin:"title_focused" parent:"title" on:"border_focused,status_bar"`

	// StatusBar is the status bar's background and plain text (inherits base).
	StatusBar Style `skin:"status_bar" parent:"base"`
	// StatusAgentIdle marks an idle agent in the status bar (inherits status_bar).
	StatusAgentIdle Style `skin:"status_agent_idle" parent:"status_bar"`
	// StatusAgentThinking marks an agent waiting on the model (inherits status_bar).
	StatusAgentThinking Style `skin:"status_agent_thinking" parent:"status_bar"`
	// StatusAgentTool marks an agent running a tool (inherits status_bar).
	StatusAgentTool Style `skin:"status_agent_tool" parent:"status_bar"`
	// StatusAgentWaiting marks an agent waiting for the user's approval (inherits status_bar).
	StatusAgentWaiting Style `skin:"status_agent_waiting" parent:"status_bar"`
	// StatusAgentError marks an agent whose last turn failed (inherits status_bar).
	StatusAgentError Style `skin:"status_agent_error" parent:"status_bar"`
	// HintText is the description text of the key-hints bar (inherits status_bar).
	HintText Style `skin:"hint_text" parent:"status_bar"`
	// HintKey is a key name in the key-hints bar (inherits hint_text).
	HintKey Style `skin:"hint_key" parent:"hint_text"`

	// Selection is the selected row or text range in lists and views (inherits base).
	Selection Style `skin:"selection" parent:"base"`
	// SearchMatch highlights a search hit (inherits base).
	SearchMatch Style `skin:"search_match" parent:"base"`
	// Dialog is the body of a modal dialog (inherits base).
	Dialog Style `skin:"dialog" parent:"base"`
	// DialogButton is an unfocused dialog button (inherits dialog).
	DialogButton Style `skin:"dialog_button" parent:"dialog"`
	// DialogButtonFocused is the focused dialog button (inherits dialog_button).
	DialogButtonFocused Style `skin:"dialog_button_focused" parent:"dialog_button"`

	// DiffContext is an unchanged context line of a diff (inherits base).
	DiffContext Style `skin:"diff_context" parent:"base"`
	// DiffAdd is an added line of a diff (inherits diff_context).
	DiffAdd Style `skin:"diff_add" parent:"diff_context"`
	// DiffDel is a deleted line of a diff (inherits diff_context).
	DiffDel Style `skin:"diff_del" parent:"diff_context"`
	// DiffHunk is a diff's file and hunk header line (inherits diff_context).
	DiffHunk Style `skin:"diff_hunk" parent:"diff_context"`

	// ChatUser is the user's messages in an agent pane (inherits base).
	ChatUser Style `skin:"chat_user" parent:"base"`
	// ChatAssistant is the model's messages in an agent pane (inherits base).
	ChatAssistant Style `skin:"chat_assistant" parent:"base"`
	// ChatTool is a tool call card and its result (inherits base).
	ChatTool Style `skin:"chat_tool" parent:"base"`
	// ChatToolError is a tool card whose call failed (inherits chat_tool).
	ChatToolError Style `skin:"chat_tool_error" parent:"chat_tool"`
	// ChatSystem is a system note such as a compaction notice (inherits base).
	ChatSystem Style `skin:"chat_system" parent:"base"`
	// ChatCode is code in an answer, a fenced block or a `span` (inherits
	// chat_tool).
	ChatCode Style `skin:"chat_code" parent:"chat_tool"`
	// ChatRef is a selectable <ctx> vault reference in a transcript (inherits base).
	ChatRef Style `skin:"chat_ref" parent:"base"`
	// ChatRefSelected is the <ctx> reference under the cursor (inherits selection).
	ChatRefSelected Style `skin:"chat_ref_selected" parent:"selection"`

	// VaultSensitive is a masked sensitive block in the vault pane (inherits base).
	VaultSensitive Style `skin:"vault_sensitive" parent:"base"`
	// VaultID is a block id such as ctx:5f2a9c1e7b3d (inherits base).
	VaultID Style `skin:"vault_id" parent:"base"`
	// VaultKind is a block kind such as tool:shell (inherits base).
	VaultKind Style `skin:"vault_kind" parent:"base"`
	// VaultSize is a block's size in characters and tokens (inherits base).
	VaultSize Style `skin:"vault_size" parent:"base"`

	// StatsNaive is the naive (resend everything) token count (inherits base).
	StatsNaive Style `skin:"stats_naive" parent:"base"`
	// StatsSent is the token count actually sent (inherits base).
	StatsSent Style `skin:"stats_sent" parent:"base"`
	// StatsSaved is the tokens and percentage saved by the diet (inherits
	// base); the status bar shows the saving in it too.
	StatsSaved Style `skin:"stats_saved" parent:"base" on:"status_bar"`
	// StatsSparkline is the per-turn sparkline's bars (inherits base).
	StatsSparkline Style `skin:"stats_sparkline" parent:"base" graphic:"true"`

	// CopyCursor is the cursor cell of a shell pane's copy mode (inherits selection).
	CopyCursor Style `skin:"copy_cursor" parent:"selection"`
}
