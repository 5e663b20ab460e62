package query

import (
	"context"
	"errors"
)

// eventInputs feeds the selected events, in logs order, to input and inputs
// of a -n program, one at a time as the program asks for them: nothing but
// the program's own state and a few decoded batches are held, whatever the
// number of events.
type eventInputs struct {
	ctx     context.Context
	start   func() <-chan *batch // begins the walk
	stop    func()
	batches <-chan *batch
	paths   *pathCheck
	cur     *batch
	i       int
	read    int   // events given to the program
	drained bool  // every selected event was given
	err     error // an event that could not be read
}

func (in *eventInputs) Next() (any, bool) {
	for in.cur == nil || in.i == len(in.cur.evs) {
		if in.err != nil {
			return in.err, true
		}
		if in.batches == nil {
			in.batches = in.start()
		}
		b, ok := <-in.batches
		if !ok {
			// The walk also ends when the query is stopped: that must
			// never look like the end of the events.
			if in.ctx.Err() != nil {
				return errStopped, true
			}
			in.drained = true
			return nil, false
		}
		<-b.done
		if b.err != nil {
			in.err = b.err
			return in.err, true
		}
		in.paths.merge(b.seen)
		in.cur, in.i = b, 0
	}
	v := in.cur.evs[in.i]
	in.cur.evs[in.i] = nil // the program's state is all that may keep it
	in.i++
	in.read++
	return v, true
}

// close ends the walk, if it began.
func (in *eventInputs) close() {
	if in.stop != nil {
		in.stop()
	}
}

// noInputs makes input and inputs fail clearly outside -n.
type noInputs struct{}

func (noInputs) Next() (any, bool) {
	return errors.New("input and inputs read the events only with -n (--null-input); without it the program runs once per event (or once over all of them with --slurp)"), true
}
