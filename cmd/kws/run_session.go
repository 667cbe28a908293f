package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/config"
)

// runInSession runs kws run's task, inside the server, as a new agent of
// the workspace's live session: the client sees the answer stream as a
// headless run prints it, and approvals wait in the agent's pane unless
// --yes answers them. The client going away stops the agent's turn.
func runInSession(cmd *cobra.Command, g *globals, f *runFlags, ws, task string, printer *eventPrinter) error {
	w := g.shared.SessionFor(ws)
	if w == nil {
		return fail("no session of the kws server works in %s: start one with kws new --workspace %s (or stop the server, kws kill-server, to run headless)", ws, ws)
	}
	if f.resume != "" || f.baseURL != "" || f.model != "" || f.apiKeyEnv != "" || f.mode != "" || !f.diet.IsZero() {
		return fail("kws run in a running session uses the session's model and diet: --resume, --base-url, --model, --api-key-env, --mode and the diet flags need kws run without a server (kws kill-server)")
	}
	base, model := w.Model()
	for _, v := range []struct{ name, session string }{{config.EnvBaseURL, base}, {config.EnvModel, model}} {
		if set := g.modelEnv[v.name]; set != "" && set != v.session {
			return fail("kws run in a running session uses the session's model: your %s=%s differs from the session's %q; unset it, or run without a server (kws kill-server)", v.name, set, v.session)
		}
	}
	if c, ok := agent.IsCommand(task); ok {
		return fail("%s answers for one agent: type it in that agent's pane of the running session (kws run there starts a new agent)", c)
	}
	started := func(agent, session string) {
		fmt.Fprintf(cmd.ErrOrStderr(), "kws: %s of session %s runs the task\n", agent, session)
	}
	id, err := w.RunTask(cmd.Context(), app.Task{Text: task, Yes: f.yes, Started: started, OnEvent: printer.print, Waiting: printer.waiting})
	if err != nil {
		return fail("%v", err)
	}
	printer.finish(id, "done")
	return nil
}
