package train

import (
	"fmt"
	"sync"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/model/torch"
)

// sampleSlot is one training batch: as the replay buffer samples it, and
// as the trainer takes it (the legal mask as booleans).
type sampleSlot struct {
	batch data.Batch
	mb    torch.Batch
	err   error
}

// newSampleSlot returns a slot for batches of n positions whose
// observations, targets (ownership too, when tr trains an ownership head)
// and legal mask are tr's memory (torch.NewBatch), so
// that sampling writes them where the training step reads them.
func newSampleSlot(tr *torch.Trainer, n, na int, valueOnly bool) (*sampleSlot, error) {
	mb, err := tr.NewBatch(n)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	s := &sampleSlot{mb: mb, batch: data.Batch{Obs: mb.Obs, Policy: mb.Policy, Value: mb.Value, Mask: make([]float32, n*na), Ownership: mb.Ownership}}
	if valueOnly {
		s.batch.PolicyWeight = make([]float32, n)
	}
	return s, nil
}

// sample draws n positions from buf into the slot, and the trainer's
// legal mask from the buffer's.
func (s *sampleSlot) sample(buf *data.Buffer, n int) error {
	if err := buf.Sample(n, &s.batch); err != nil {
		return fmt.Errorf("train: sample: %w", err)
	}
	for i, m := range s.batch.Mask {
		s.mb.Legal[i] = m != 0
	}
	return nil
}

// sampler draws a training phase's batches from the replay buffer one step
// ahead of the trainer, in a goroutine of its own: the next batch is
// sampled on the CPU while the current one trains. It draws exactly the
// batches asked for, in order, with the buffer's one generator, so they are
// the batches sampling in line would draw. The buffer must not change
// while it runs (the trainer adds games only between phases).
type sampler struct {
	full, free chan *sampleSlot
	stop, done chan struct{}
	once       sync.Once
}

// startSampler starts sampling steps batches of n positions into the two
// slots.
func startSampler(buf *data.Buffer, n int, steps int64, slots [2]*sampleSlot) *sampler {
	s := &sampler{full: make(chan *sampleSlot, 2), free: make(chan *sampleSlot, 2), stop: make(chan struct{}), done: make(chan struct{})}
	s.free <- slots[0]
	s.free <- slots[1]
	go func() {
		defer close(s.done)
		for range steps {
			var sl *sampleSlot
			select {
			case sl = <-s.free:
			case <-s.stop:
				return
			}
			sl.err = sl.sample(buf, n)
			s.full <- sl // never blocks: there are two slots
			if sl.err != nil {
				return
			}
		}
	}()
	return s
}

// next returns the next batch; release it when its step is done.
func (s *sampler) next() *sampleSlot { return <-s.full }

// release hands a batch's slot back for sampling.
func (s *sampler) release(sl *sampleSlot) { s.free <- sl }

// close stops the sampling and waits for the goroutine. It is
// idempotent.
func (s *sampler) close() {
	s.once.Do(func() { close(s.stop) })
	<-s.done
}
