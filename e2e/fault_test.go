package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// faultMarker names one record: which writer sent it and its number there.
type faultMarker struct{ W, N int }

func faultRecord(m faultMarker) string {
	return fmt.Sprintf(`{"hypothesisId":"H1","location":"fault.go:1","message":"m","data":{"w":%d,"n":%d},"timestamp":1784313728231}`, m.W, m.N) + "\n"
}

// faultLedger is what the writers were promised: records of HTTP batches
// answered 200, and complete lines written to the append path.
type faultLedger struct {
	mu       sync.Mutex
	acked    []faultMarker
	appended []faultMarker
	failed   int // HTTP posts not acknowledged
}

// faultStatus is the part of status --json this test reads.
type faultStatus struct {
	Events    int    `json:"events"`
	Rejected  int    `json:"rejectedRecords"`
	Warnings  int    `json:"warnings"` // a torn record set aside on recovery is one
	IngestURL string `json:"ingestUrl"`
}

// TestFaultKillDuringIngestion kills the service with SIGKILL, twice, while
// it is busy taking in evidence over both transports. What the writers were
// promised must survive: every record of an acknowledged HTTP batch and every
// complete line in the append path is stored exactly once after the next
// command, and the sequence stays gapless.
func TestFaultKillDuringIngestion(t *testing.T) {
	e := NewEnv(t)
	s := e.Create()
	var ledger faultLedger
	var st faultStatus
	url := s.IngestURL
	for round := range 2 {
		pid, _, ok := e.Discovery()
		if !ok {
			t.Fatal("no service is running")
		}
		faultRound(t, round, url, s.AppendPath, pid, &ledger)
		// The next command restarts the service, which recovers and drains.
		start := time.Now()
		e.JSON(&st, "status", "--session", s.SessionID)
		t.Logf("round %d: restart and drain took %s; %d events, %d recovery warnings",
			round, time.Since(start).Round(time.Millisecond), st.Events, st.Warnings)
		url = st.IngestURL
	}

	events := e.Events(s.SessionID)
	t.Logf("%d acknowledged HTTP records (%d posts unanswered), %d appended lines; %d events stored",
		len(ledger.acked), ledger.failed, len(ledger.appended), len(events))
	if len(ledger.acked) == 0 || len(ledger.appended) == 0 {
		t.Fatal("the service was killed before both transports delivered anything; the test proves nothing")
	}
	seen := map[faultMarker]int{}
	for i, ev := range events {
		if seq, _ := ev["sequence"].(float64); int(seq) != i+1 {
			t.Fatalf("event %d has sequence %v; sequences must stay gapless across a crash", i+1, ev["sequence"])
		}
		d, _ := ev["data"].(map[string]any)
		w, wok := d["w"].(float64)
		n, nok := d["n"].(float64)
		if !wok || !nok {
			t.Fatalf("event %d carries data %v, which no writer sent", i+1, ev["data"])
		}
		seen[faultMarker{int(w), int(n)}]++
	}
	dups := 0
	for m, c := range seen {
		if c > 1 {
			if dups < 5 {
				t.Errorf("record %+v stored %d times; a crash must not duplicate evidence", m, c)
			}
			dups++
		}
	}
	if dups > 0 {
		t.Errorf("%d records stored more than once", dups)
	}
	faultLost(t, "acknowledged HTTP record", ledger.acked, seen)
	faultLost(t, "appended line", ledger.appended, seen)
	if st.Events != len(events) || st.Rejected != 0 {
		t.Errorf("status says %d events, %d rejected; the evidence file holds %d and every record sent was valid", st.Events, st.Rejected, len(events))
	}
	// Every appended line was taken in, so none of its raw bytes remain.
	raw, err := os.ReadFile(s.AppendPath)
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.IndexFunc(raw, func(r rune) bool { return r != 0 }); i >= 0 {
		t.Errorf("byte %d of the %d-byte append path still holds a record taken in: %.60q", i, len(raw), raw[i:])
	}
}

// faultRound runs HTTP posters (400-record batches) and file appenders (one
// write per line) against the session, SIGKILLs the service mid-way, lets the
// appenders go on briefly with no service, then stops every writer.
func faultRound(t *testing.T, round int, url, appendPath string, pid int, l *faultLedger) {
	const posters, appenders, batchSize = 4, 4, 400
	var wg sync.WaitGroup
	stop := make(chan struct{})
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for p := range posters {
		w := round*100 + p
		wg.Go(func() {
			for b := 0; !stopped(); b++ {
				var body bytes.Buffer
				batch := make([]faultMarker, batchSize)
				for i := range batch {
					batch[i] = faultMarker{w, b*batchSize + i}
					body.WriteString(faultRecord(batch[i]))
				}
				resp, err := client.Post(url, "application/x-ndjson", &body)
				var res struct{ Accepted int }
				if err == nil {
					err = json.NewDecoder(resp.Body).Decode(&res)
					resp.Body.Close()
				}
				l.mu.Lock()
				if err == nil && resp.StatusCode == http.StatusOK && res.Accepted == batchSize {
					l.acked = append(l.acked, batch...)
				} else {
					l.failed++
				}
				l.mu.Unlock()
				if err != nil {
					time.Sleep(time.Millisecond) // the service is gone; don't spin
				}
			}
		})
	}
	for a := range appenders {
		w := 1000 + round*100 + a
		wg.Go(func() {
			f, err := os.OpenFile(appendPath, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			for n := 0; !stopped(); n++ {
				m := faultMarker{w, n}
				if _, err := f.WriteString(faultRecord(m)); err != nil { // one write: the line is complete
					t.Error(err)
					return
				}
				l.mu.Lock()
				l.appended = append(l.appended, m)
				l.mu.Unlock()
				if n%50 == 49 {
					time.Sleep(time.Millisecond) // keep the spool to a size the test checks quickly
				}
			}
		})
	}

	time.Sleep(500*time.Millisecond + rand.N(500*time.Millisecond))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !WaitExit(pid, 5*time.Second) {
		t.Fatal("service did not die on SIGKILL")
	}
	time.Sleep(100 * time.Millisecond) // appenders keep writing while no service runs
	close(stop)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// faultLost reports promised records that are not stored.
func faultLost(t *testing.T, what string, promised []faultMarker, seen map[faultMarker]int) {
	t.Helper()
	missing := 0
	for _, m := range promised {
		if seen[m] == 0 {
			if missing < 5 {
				t.Errorf("%s %+v is missing after the crash", what, m)
			}
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d %ss lost", missing, len(promised), what)
	}
}
