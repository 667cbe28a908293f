package main

import (
	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/config"
)

// dietFlags adds the session's diet settings to cmd: each flag given is
// set in d after the command line is parsed, over the configuration's
// [diet] table and the role's, and checked as config.toml's are.
func dietFlags(cmd *cobra.Command, d *config.Diet) {
	fl := cmd.Flags()
	trigger := fl.Int("trigger-tokens", 0, "diet: prompt tokens below which everything is sent exact")
	recent := fl.Int("recent", 0, "diet: newest messages always sent exact")
	minBlock := fl.Int("min-block-chars", 0, "diet: smallest message (chars) moved to the vault")
	compactAt := fl.Float64("compact-at", 0, "share of (window - completion reserve) that triggers compaction, e.g. 0.85")
	fl.StringVar(&d.CompactModel, "compact-model", "", "who writes the compaction summary: extractive or sidecar")
	prev := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		set := func(name string) bool { return cmd.Flags().Changed(name) }
		if set("trigger-tokens") {
			d.TriggerTokens = trigger
		}
		if set("recent") {
			d.Recent = recent
		}
		if set("min-block-chars") {
			d.MinBlockChars = minBlock
		}
		if set("compact-at") {
			d.CompactAt = compactAt
		}
		if err := d.Validate(); err != nil {
			return fail("%v", err)
		}
		if prev != nil {
			return prev(cmd, args)
		}
		return nil
	}
}
