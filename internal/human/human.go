// Package human formats figures the way kws shows them to people, in its
// panes and its command-line listings alike.
package human

import (
	"fmt"
	"time"
)

// Age formats an age in its largest whole unit: 5s, 3m, 2h, 4d.
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d/time.Second), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}
