package team

import (
	_ "unsafe" // go:linkname

	// The package whose sampler stops here; nats-server links it anyway.
	_ "github.com/nats-io/nats-server/v2/server/pse"
)

// pseStatFile is the file nats-server's process-stats package (pse)
// reads every second, from its init on, in every process that links
// nats-server: a sampler of the process's CPU use for nats-server's
// monitoring pages, which kws never serves. That wake-up alone kept an
// idle kws from 0 % CPU. The sampler stops for good at its next run when
// it cannot read the file, so kws empties the name; monitoring would show
// 0 % CPU and 0 bytes.
//
//go:linkname pseStatFile github.com/nats-io/nats-server/v2/server/pse.procStatFile
var pseStatFile string

func init() { stopPseSampler() }

// stopPseSampler empties the name. The sampler's next run reads it from
// its timer's goroutine a second later, with nothing between the two that
// the race detector sees, so the write is kept from it (go:norace): in
// race builds it would flag every test of a package that links team.
//
//go:norace
func stopPseSampler() { pseStatFile = "" }
