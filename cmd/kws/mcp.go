package main

import "github.com/spf13/cobra"

// newMcpCmd is kws's Model Context Protocol command: kws as an MCP server
// for other agents.
func newMcpCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "mcp", Short: "Model Context Protocol: serve kws's vault, memory and board to other agents"}
	cmd.AddCommand(newMcpServeCmd(g))
	return cmd
}
