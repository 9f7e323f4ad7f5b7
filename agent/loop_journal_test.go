package agent

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/session"
)

// A journal another live agentls writes is its turn, still running: a
// load here leaves it and the session alone. Once that process is gone the
// journal is recovered: its text stored as an interrupted answer.
func TestAJournalOfALiveProcessIsLeftAlone(t *testing.T) {
	s := session.NewStore(t.TempDir(), "/ws")
	if err := s.Append("s1", user("explain")); err != nil {
		t.Fatal(err)
	}
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Skipf("no sleep to stand in for another agentls: %v", err)
	}
	j, err := s.OpenJournal("s1")
	if err != nil {
		t.Fatal(err)
	}
	j.Text("half an answer\n")
	j.Close()
	// Make the journal another process's.
	raw, _ := os.ReadFile(s.JournalPath("s1"))
	lines := strings.SplitN(string(raw), "\n", 2)
	lines[0] = strings.Replace(lines[0], `"pid":`+strconv.Itoa(os.Getpid()), `"pid":`+strconv.Itoa(other.Process.Pid), 1)
	if err := os.WriteFile(s.JournalPath("s1"), []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if note := s.RecoverTurn("s1"); note != "" {
		t.Errorf("recovered a live process's turn: %s", note)
	}
	if msgs, _ := session.ReadMessages(s.Path("s1")); len(msgs) != 1 {
		t.Errorf("session = %+v, want the prompt alone", msgs)
	}
	other.Process.Kill()
	other.Wait()
	note := s.RecoverTurn("s1")
	msgs, _ := session.ReadMessages(s.Path("s1"))
	if len(msgs) != 2 || msgs[1].Interrupted != session.InterruptedStopped || model.TextOf(msgs[1].Content) != "half an answer\n" || !strings.Contains(note, "half an answer") {
		t.Errorf("after the writer died: session %+v, note %q; want the half answer stored, interrupted: stopped", msgs, note)
	}
	if _, err := os.Stat(s.JournalPath("s1")); err == nil {
		t.Errorf("the journal is still there after its recovery")
	}
}

// BenchmarkTurnJournal streams an answer of 4-byte deltas with a newline
// every 80 bytes into a turn's journal: "batched" is the journal as it
// runs (a write per line, or per journalFlushEvery), "per-delta" a write
// for every delta. It reports the writes each answer costs.
func BenchmarkTurnJournal(b *testing.B) {
	const deltas = 2000
	delta := func(i int) string {
		if i%20 == 19 {
			return "abc\n"
		}
		return "abcd"
	}
	for _, mode := range []string{"batched", "per-delta"} {
		b.Run(mode, func(b *testing.B) {
			s := session.NewStore(b.TempDir(), "/ws")
			if err := s.Append("bench", user("explain")); err != nil {
				b.Fatal(err)
			}
			writes := 0
			for b.Loop() {
				j, err := s.OpenJournal("bench")
				if err != nil {
					b.Fatal(err)
				}
				for i := range deltas {
					j.Text(delta(i))
					if mode == "per-delta" {
						j.Flush()
					}
				}
				j.Close()
				writes += j.Writes()
				j.Remove()
			}
			b.ReportMetric(float64(writes)/float64(b.N), "writes/answer")
		})
	}
}
