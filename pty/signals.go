package pty

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// childSignals are the signals a program in a pane must receive with
// their default action: a hangup ends a job when its pane closes, and a
// broken pipe ends the writer of `yes | head` quietly.
var childSignals = []os.Signal{syscall.SIGHUP, syscall.SIGPIPE}

var unignoreOnce sync.Once

// unignoreChildSignals makes sure programs started in panes get the
// default action of childSignals. A signal this process ignores stays
// ignored in every program it starts (exec keeps SIG_IGN): under nohup,
// or in the kws server, which ignores hangups, a closed pane's job
// survived its SIGHUP and every pipeline writer ignored SIGPIPE. A signal
// ignored here is caught and dropped instead, which this process cannot
// tell apart, while exec resets a caught signal to its default.
func unignoreChildSignals() {
	unignoreOnce.Do(func() {
		var ignored []os.Signal
		for _, sig := range childSignals {
			if signal.Ignored(sig) {
				ignored = append(ignored, sig)
			}
		}
		if len(ignored) == 0 {
			return
		}
		sink := make(chan os.Signal, 1)
		signal.Notify(sink, ignored...)
		go func() {
			for range sink {
			}
		}()
	})
}
