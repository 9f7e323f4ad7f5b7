package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// writeCall is a write_file call of the fake model.
func writeCall(id, path, content string) modeltest.ToolCall {
	in, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return modeltest.ToolCall{ID: id, Name: "write_file", Input: string(in)}
}

func commandCall(id, command string) modeltest.ToolCall {
	in, _ := json.Marshal(map[string]any{"command": command, "shell": true})
	return modeltest.ToolCall{ID: id, Name: "run_command", Input: string(in)}
}

// snapshotDir is every regular file under dir (git's folder left out) and
// its bytes.
func snapshotDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return nil
	})
	return out
}

func sameFiles(t *testing.T, got, want map[string][]byte) {
	t.Helper()
	for p, w := range want {
		if g, ok := got[p]; !ok || !bytes.Equal(g, w) {
			t.Errorf("%s = %q (exists %v), want %q", p, g, ok, w)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s exists (%q), want it absent", p, g)
		}
	}
}

// Three turns create, edit and delete files, by the agent's own writes and
// by commands; a rewind to turn 2 puts every byte back as it was after
// turn 1, refuses first while a file was changed outside agentls, and
// forks the conversation: the next turn continues from turn 1 while the
// session file keeps turns 2 and 3.
func TestRewindRestoresTheFilesOfLaterTurnsByteForByte(t *testing.T) {
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, format, nil)
			binary := string([]byte{0, 1, 2, 0xff, '\r', '\n', 0xfe})
			writeFileT(t, filepath.Join(f.dir, "kept.txt"), "never touched\n")
			writeFileT(t, filepath.Join(f.dir, "bin.dat"), binary)
			allow := TaskIO{Approver: &answer{opt: "allow_once"}}

			f.model.Script(
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{writeCall("t1a", "a.txt", "one\n"), writeCall("t1b", "b.txt", "bee\r\nno newline")}},
				modeltest.Turn{Text: "turn one done"},
			)
			if res := f.run(t, RunRequest{Prompt: "turn one"}, allow); res.StopReason != "end_turn" {
				t.Fatalf("turn 1: %+v", res)
			}
			afterTurn1 := snapshotDir(t, f.dir)

			f.model.Script(
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{
					{ID: "t2a", Name: "edit_file", Input: `{"path":"a.txt","old_text":"one","new_text":"ONE"}`},
					writeCall("t2c", "c.txt", "sea\n"),
					commandCall("t2d", "rm b.txt && printf 'changed' > bin.dat"),
				}},
				modeltest.Turn{Text: "turn two done"},
			)
			if res := f.run(t, RunRequest{Prompt: "turn two", SessionID: sessionOf(t, f)}, allow); res.StopReason != "end_turn" {
				t.Fatalf("turn 2: %+v", res)
			}
			f.model.Script(
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{
					writeCall("t3a", "a.txt", "three\n"),
					writeCall("t3d", "sub/d.txt", "dee\n"),
					commandCall("t3e", "printf 'e' > e.txt && rm c.txt"),
				}},
				modeltest.Turn{Text: "turn three done"},
			)
			sid := sessionOf(t, f)
			if res := f.run(t, RunRequest{Prompt: "turn three", SessionID: sid}, allow); res.StopReason != "end_turn" {
				t.Fatalf("turn 3: %+v", res)
			}
			if _, err := os.Stat(filepath.Join(f.dir, "e.txt")); err != nil {
				t.Fatalf("turn 3's command did not run: %v", err)
			}

			// Changed outside agentls since turn 3 wrote it: asked about,
			// nothing restored.
			writeFileT(t, filepath.Join(f.dir, "sub/d.txt"), "typed by the user\n")
			res, err := f.core.Rewind(context.Background(), sid, 2, false, f.ws)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Changed, []string{filepath.Join(f.dir, "sub/d.txt")}) || len(res.Restored) != 0 {
				t.Fatalf("rewind without force = %+v, want sub/d.txt reported changed and nothing restored", res)
			}
			if b, _ := os.ReadFile(filepath.Join(f.dir, "a.txt")); string(b) != "three\n" {
				t.Fatalf("a refused rewind changed a.txt to %q", b)
			}

			res, err = f.core.Rewind(context.Background(), sid, 2, true, f.ws)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.NotRestored) != 0 {
				t.Errorf("not restored: %+v", res.NotRestored)
			}
			sameFiles(t, snapshotDir(t, f.dir), afterTurn1)
			t.Logf("rewind: %s", res.Message)

			// The conversation forks before turn 2; the file keeps it all.
			f.model.Script(modeltest.Turn{Text: "turn two again"})
			if res := f.run(t, RunRequest{Prompt: "turn two, take two", SessionID: sid}, allow); res.StopReason != "end_turn" {
				t.Fatalf("turn after the rewind: %+v", res)
			}
			reqs := f.model.Requests()
			last := reqs[len(reqs)-1]
			if got := last.AssistantTexts(); !slices.Equal(got, []string{"turn one done"}) {
				t.Errorf("after the rewind the model saw the assistant texts %q, want only turn 1's", got)
			}
			raw, _ := os.ReadFile(f.core.sessions.Path(sid))
			for _, s := range []string{"turn two", "turn three done", "turn two, take two"} {
				if !strings.Contains(string(raw), s) {
					t.Errorf("the session file lost %q", s)
				}
			}
			// A second rewind counts turns of the forked history: turn 2 is
			// now "take two", which changed nothing.
			if _, err := f.core.Rewind(context.Background(), sid, 3, false, f.ws); err == nil {
				t.Errorf("rewind to turn 3 of a 2-turn history succeeded")
			}
		})
	}
}

// sessionOf is the fixture's one stored session.
func sessionOf(t *testing.T, f *fixture) string {
	t.Helper()
	list, err := f.core.sessions.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions = %+v, %v; want one", list, err)
	}
	return list[0].SessionID
}

// A rewind says what it could not restore: a file a command changed that
// was over the size a checkpoint keeps (checkpointFileMax) is named, with
// why, and left as it is; the other files of the turn come back byte for
// byte, and the message counts both.
func TestRewindSaysWhatItCouldNotRestore(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	big := strings.Repeat("b", checkpointFileMax+1)
	writeFileT(t, filepath.Join(f.dir, "big.bin"), big)
	writeFileT(t, filepath.Join(f.dir, "a.txt"), "a before\n")
	allow := TaskIO{Approver: &answer{opt: "allow_once"}}
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			writeCall("t1a", "a.txt", "a by the agent\n"),
			commandCall("t1b", "printf 'tail' >> big.bin"),
		}},
		modeltest.Turn{Text: "turn one done"},
	)
	if res := f.run(t, RunRequest{Prompt: "turn one"}, allow); res.StopReason != "end_turn" {
		t.Fatalf("turn 1: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "big.bin")); len(b) != len(big)+4 {
		t.Fatalf("the command did not append to big.bin (%d bytes)", len(b))
	}
	res, err := f.core.Rewind(context.Background(), sessionOf(t, f), 1, true, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	bigPath := filepath.Join(f.dir, "big.bin")
	if !slices.Equal(res.Restored, []string{filepath.Join(f.dir, "a.txt")}) {
		t.Errorf("restored %q, want a.txt alone", res.Restored)
	}
	if len(res.NotRestored) != 1 || res.NotRestored[0].Path != bigPath ||
		!strings.Contains(res.NotRestored[0].Why, fmt.Sprintf("%d bytes, over the %d a checkpoint keeps", len(big), checkpointFileMax)) {
		t.Fatalf("not restored %+v, want big.bin with the cap it was over", res.NotRestored)
	}
	if !strings.Contains(res.Message, "1 file(s) restored, 1 could not be") {
		t.Errorf("message %q, want both counted", res.Message)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "a.txt")); string(b) != "a before\n" {
		t.Errorf("a.txt = %q, want its bytes before turn 1", b)
	}
	if b, _ := os.ReadFile(bigPath); string(b) != big+"tail" {
		t.Errorf("big.bin changed (%d bytes): a file not kept must be left as it is", len(b))
	}
}
