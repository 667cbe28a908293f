// Package app is kws's composition root: the one place where the concrete
// stores, the swarm, the panes and the application meet. It opens a data
// dir's shared stores once, builds each session's workstation on them
// (the pane registry, the events pump, the journal, the sidecar, the
// worktrees) and runs kws run's task inside a live session. cmd/kws keeps
// the commands, their flags and their printing and calls this package;
// the server package runs what this package builds.
package app
