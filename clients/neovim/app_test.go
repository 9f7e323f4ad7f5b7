package neovim_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestAppNotShown: the model calls the real MCP App server's get-time,
// whose definition names a ui:// App. The plugin cannot show an App, so
// its conversation says that the tool offered a UI this editor cannot
// show, after the call's text result.
func TestAppNotShown(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "openai",
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "basic__get-time", Input: `{}`}}},
				modeltest.Turn{Text: "It is late."})
			f, err := os.OpenFile(w.configPath(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = fmt.Fprintf(f, "\n%s", testenv.AppServerConfig(t))
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "app.lua"))
			conv, _ := res["conversation"].(string)
			const notice = "> basic__get-time offered a UI (ui://get-time/mcp-app.html) that this editor cannot show; its result is the text above"
			i, j := strings.Index(conv, "completed"), strings.Index(conv, notice)
			if i < 0 || j < i || !strings.Contains(conv, "It is late.") {
				t.Fatalf("the conversation lacks the completed call, then %q, then the answer:\n%s", notice, conv)
			}
			t.Logf("the conversation:\n%s", conv)
		})
	}
}
