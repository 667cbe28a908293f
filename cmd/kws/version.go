package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/internal/buildinfo"
	"github.com/kwsdev/kws/sidecar/llamacpp"
)

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "The version, Go toolchain and how llama.cpp was compiled (also kws --version)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printVersion(cmd, g)
		},
	}
}

// printVersion prints this program's build, the CPU features its
// llama.cpp was compiled for, and the thin client beside it (bin/kws).
func printVersion(cmd *cobra.Command, g *globals) error {
	core := buildinfo.Self()
	r := buildinfo.Report{Core: &core, Features: llamacpp.Features()}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		if c, err := buildinfo.File(filepath.Join(filepath.Dir(exe), "kws")); err == nil && c.Path == clientPath {
			r.Client = &c
		}
	}
	if g.json {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(r)
	}
	r.Write(cmd.OutOrStdout())
	return nil
}

// clientPath is the thin client's main package.
const clientPath = "github.com/kwsdev/kws/cmd/kws-client"
