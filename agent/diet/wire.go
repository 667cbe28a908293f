package diet

// The agent sends more than message contents: tool schemas, and each
// assistant message's tool calls with their arguments. These hooks let it
// count that bulk toward the trigger and diet old arguments in step with
// the messages.

// SetExtraTokens sets how many tokens each prompt sends besides the
// messages' contents and frames, so the trigger sees the whole prompt:
// fixed once (tool schemas), and per[i] with message i (its tool-call ids,
// names and arguments), which goes when the message is elided, and with
// the first message of an elided run, whose tool calls the agent drops
// with their results (Result.Messages[i+1].Elided). It counts in the
// prompt figure of the next Build's event. savable[i], when given, is what
// externalizing message i would save besides its content (its bulky
// tool-call arguments going by ref), so an epoch is timed by all it frees.
func (s *State) SetExtraTokens(fixed int, per, savable []int) {
	s.extraFixed, s.extraPer, s.extraSave = max(fixed, 0), per, savable
}

// extraTokens is what the prompt sends besides contents and frames, as
// SetExtraTokens gave it, for the messages sent.
func (s *State) extraTokens() int {
	n := s.extraFixed
	for i, t := range s.extraPer {
		if i >= len(s.entries) || s.entries[i].form != formElided && s.entries[i].level == 0 {
			n += t
		}
	}
	return n
}

// savableExtra is savable[i] of the last SetExtraTokens, or 0.
func (s *State) savableExtra(i int) int {
	if i < len(s.extraSave) {
		return max(s.extraSave[i], 0)
	}
	return 0
}

// Externalized reports whether message i is older than the recent window
// of the last epoch: from then on its bulky parts go by reference. Like
// the messages, it never turns back to false within a session.
func (s *State) Externalized(i int) bool { return i >= 0 && i < s.cut }
