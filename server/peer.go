package server

import (
	"encoding/binary"
	"encoding/json"
	"net"
	"sync"

	"github.com/kwsdev/kws/server/wire"
)

// maxQueued bounds the output waiting for one slow client. Past it the
// queued frames are dropped and the session redraws in full once the
// client has caught up, as tmux does, so one stalled terminal never
// holds up the others or grows the server without limit.
const maxQueued = 8 << 20

// peer is one client connection's sending side: frames are queued without
// blocking and a goroutine writes them in order.
type peer struct {
	conn net.Conn
	wake chan struct{}
	done chan struct{}

	mu      sync.Mutex
	queue   net.Buffers
	queued  int
	dropped bool
	exiting bool
	closed  bool
	// size is the client terminal's size (attached clients only).
	size wire.Size
	// onCaughtUp runs after a client whose output was dropped has caught
	// up (the session redraws).
	onCaughtUp func()
}

// newPeer starts the writer of conn.
func newPeer(conn net.Conn) *peer {
	p := &peer{conn: conn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go p.writeLoop()
	return p
}

// send queues a frame. It never blocks.
func (p *peer) send(typ byte, payload []byte) {
	for len(payload) > wire.MaxFrame {
		p.send(typ, payload[:wire.MaxFrame])
		payload = payload[wire.MaxFrame:]
	}
	frame := make([]byte, 5+len(payload))
	frame[0] = typ
	binary.BigEndian.PutUint32(frame[1:5], uint32(len(payload)))
	copy(frame[5:], payload)
	p.mu.Lock()
	if p.closed || p.exiting {
		p.mu.Unlock()
		return
	}
	if p.queued+len(frame) > maxQueued && typ == wire.FrameOutput {
		p.queue, p.queued, p.dropped = nil, 0, true
		p.mu.Unlock()
		return
	}
	p.queue = append(p.queue, frame)
	p.queued += len(frame)
	p.mu.Unlock()
	p.signal()
}

// sendJSON queues a frame whose payload is v as JSON.
func (p *peer) sendJSON(typ byte, v any) {
	data, err := json.Marshal(v)
	if err == nil {
		p.send(typ, data)
	}
}

// exit queues the exit frame; the connection closes once it is written.
func (p *peer) exit(e wire.Exit) {
	p.sendJSON(wire.FrameExit, e)
	p.mu.Lock()
	p.exiting = true
	p.mu.Unlock()
	p.signal()
}

// close drops the connection at once.
func (p *peer) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.conn.Close()
	p.signal()
}

func (p *peer) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// writeLoop writes the queued frames until the connection ends.
func (p *peer) writeLoop() {
	defer close(p.done)
	for range p.wake {
		p.mu.Lock()
		q, dropped, exiting, closed := p.queue, p.dropped, p.exiting, p.closed
		p.queue, p.queued, p.dropped = nil, 0, false
		caughtUp := p.onCaughtUp
		p.mu.Unlock()
		if closed {
			return
		}
		if len(q) > 0 {
			if _, err := q.WriteTo(p.conn); err != nil {
				p.close()
				return
			}
		}
		if exiting {
			p.mu.Lock()
			empty := len(p.queue) == 0
			p.mu.Unlock()
			if empty {
				p.conn.Close()
				return
			}
			p.signal()
			continue
		}
		if dropped && caughtUp != nil {
			caughtUp()
		}
	}
}
