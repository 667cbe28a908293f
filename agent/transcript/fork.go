package transcript

import (
	"errors"
	"fmt"
)

// Fork starts a new session under dataDir holding the first keep messages
// of s, for a conversation rewound to before a turn: the new session
// continues from there while s, with everything after, stays as it was.
// Its title says what it forked from. It returns the new session's id;
// the session is closed, for the agent that continues it to open.
func (s *Transcript) Fork(dataDir string, keep int) (string, error) {
	msgs := s.Messages()
	if keep < 0 || keep > len(msgs) {
		return "", fmt.Errorf("transcript: fork %s at message %d: it has %d", s.id, keep, len(msgs))
	}
	f, err := Create(dataDir, s.Run().Workspace)
	if err != nil {
		return "", err
	}
	for _, m := range msgs[:keep] {
		if err = f.AppendMessage(m); err != nil {
			break
		}
	}
	if err == nil {
		title := s.Summary().Title
		err = f.SetSummary(func(sum *Summary) {
			sum.Title, sum.Status = Title("rewound "+s.id+": "+title), StatusInterrupted
		})
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return "", fmt.Errorf("transcript: fork %s: %w", s.id, err)
	}
	return f.ID(), nil
}
