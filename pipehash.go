package main

import "crypto/sha256"

// pipeHash is a SHA-256 that hashes on another goroutine: the engine fills
// 256 KiB blocks of trace while the previous ones are hashed, so a headless
// run's trace hash costs almost no time on the simulating core. The engine
// itself starts no goroutines; this lives in the command.
type pipeHash struct {
	h interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}
	work chan []byte
	free chan []byte
	done chan struct{}
}

func newPipeHash() *pipeHash {
	p := &pipeHash{h: sha256.New(), work: make(chan []byte, 4), free: make(chan []byte, 4), done: make(chan struct{})}
	// four blocks here and the one the engine fills: with at most four
	// free at once, the hashing goroutine never waits to hand one back
	for i := 0; i < 4; i++ {
		p.free <- make([]byte, 0, 256<<10)
	}
	go func() {
		for b := range p.work {
			p.h.Write(b)
			p.free <- b[:0]
		}
		close(p.done)
	}()
	return p
}

// Write copies p into a free block and queues it; it never fails.
func (p *pipeHash) Write(b []byte) (int, error) {
	n0 := len(b)
	for len(b) > 0 {
		blk := <-p.free
		n := min(len(b), cap(blk))
		blk = append(blk, b[:n]...)
		p.work <- blk
		b = b[n:]
	}
	return n0, nil
}

// Block queues a full block as it is and returns a free one (the engine's
// BlockHash): the trace is never copied.
func (p *pipeHash) Block(full []byte) []byte {
	p.work <- full
	b := <-p.free
	return b[:cap(b)]
}

// Sum waits for the queued blocks and returns the digest. The pipe is
// closed afterwards: Sum may be called once.
func (p *pipeHash) Sum(in []byte) []byte {
	close(p.work)
	<-p.done
	return p.h.Sum(in)
}
