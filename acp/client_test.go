package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// world is one test's agentls home: a workspace, a state dir and a user
// config pointing at a fake model.
type world struct {
	t                   *testing.T
	model               *modeltest.Server
	root, state, config string
	bin                 string
}

func newWorld(t *testing.T, extraConfig string) *world {
	t.Helper()
	w := &world{t: t, model: modeltest.New(t), bin: testenv.Agentls(t)}
	dir := t.TempDir()
	w.root, w.state, w.config = filepath.Join(dir, "ws"), filepath.Join(dir, "state"), filepath.Join(dir, "config.toml")
	if err := os.MkdirAll(w.root, 0o755); err != nil {
		t.Fatal(err)
	}
	// Symlinks resolved: the agent reports paths as confine resolves them.
	w.root, _ = filepath.EvalSymlinks(w.root)
	cfg := fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"fake-model\"\ncontext_window = 200000\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n\n%s", w.model.URL()+"/v1", extraConfig)
	if err := os.WriteFile(w.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) env() map[string]string {
	return map[string]string{"AGENTLS_CONFIG": w.config, "XDG_STATE_HOME": w.state, "AGENTLS_TEST_KEY": "test"}
}

// plan is what tools/node/acp-client.mjs runs (see its header).
type plan struct {
	Cmd []string          `json:"cmd"`
	Env map[string]string `json:"env"`
	FS  struct {
		Read  bool `json:"read"`
		Write bool `json:"write"`
	} `json:"fs"`
	Buffers     map[string]string `json:"buffers,omitempty"`
	Marker      string            `json:"marker,omitempty"`
	Elicitation map[string]any    `json:"elicitation,omitempty"`
	Elicit      []map[string]any  `json:"elicit,omitempty"`
	Follow      bool              `json:"follow,omitempty"`
	Steps       []step            `json:"steps"`
}

type step struct {
	Op         string          `json:"op"`
	Cwd        string          `json:"cwd,omitempty"`
	Text       string          `json:"text,omitempty"`
	Answers    []string        `json:"answers,omitempty"`
	SessionID  string          `json:"sessionId,omitempty"`
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
	// AdditionalDirectories of a "new" step: more workspace roots.
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// ConfigID of a "setConfigOption" step (Text is its value).
	ConfigID string `json:"configId,omitempty"`
	// CancelOnText: a "prompt" step sends session/cancel at its first
	// agent_message_chunk.
	CancelOnText bool `json:"cancelOnText,omitempty"`
	// CancelOnUpdate: a "prompt" step sends session/cancel at its first
	// session/update whose JSON contains this text.
	CancelOnUpdate string `json:"cancelOnUpdate,omitempty"`
	// AnswersWithChanges answer permissions after Answers, each after the
	// user changed buffers or files while the card was open.
	AnswersWithChanges []answerWithChanges `json:"answersWithChanges,omitempty"`
}

// answerWithChanges is the user changing the editor's buffers and files on
// disk while a permission is asked, then choosing Option.
type answerWithChanges struct {
	Option  string            `json:"option"`
	Buffers map[string]string `json:"buffers,omitempty"`
	Disk    map[string]string `json:"disk,omitempty"`
}

// clientRun is what the client printed.
type clientRun struct {
	Steps []struct {
		Op            string          `json:"op"`
		Result        json.RawMessage `json:"result"`
		MarkerRunning *bool           `json:"markerRunning"`
		Error         *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"steps"`
	Updates     []sessionNotificationIn `json:"updates"`
	Permissions []struct {
		SessionID     string             `json:"sessionId"`
		ToolCall      toolCallIn         `json:"toolCall"`
		Options       []permissionOption `json:"options"`
		MarkerRunning *bool              `json:"markerRunning"`
	} `json:"permissions"`
	Elicitations    []json.RawMessage      `json:"elicitations"`
	Writes          []writeTextFileRequest `json:"writes"`
	Reads           []string               `json:"reads"`
	Violations      []string               `json:"violations"`
	Sent            int                    `json:"sent"`
	ConnectionError string                 `json:"connectionError"`
	Exit            struct {
		Code   *int    `json:"code"`
		Signal *string `json:"signal"`
	} `json:"exit"`
	PID int `json:"pid"`
}

// The client's view of updates, decoded loosely to assert on.
type sessionNotificationIn struct {
	SessionID string   `json:"sessionId"`
	Update    updateIn `json:"update"`
}

type updateIn struct {
	SessionUpdate string `json:"sessionUpdate"`
	toolCallIn
	AvailableCommands []availableCommand `json:"availableCommands"`
	Entries           []planEntry        `json:"entries"`
	CurrentModeID     string             `json:"currentModeId"`
	ConfigOptions     []configOption     `json:"configOptions"`
	Used              *int               `json:"used"`
	Size              *int               `json:"size"`
}

type toolCallIn struct {
	ToolCallID string          `json:"toolCallId"`
	Title      string          `json:"title"`
	Kind       string          `json:"kind"`
	Status     string          `json:"status"`
	RawInput   json.RawMessage `json:"rawInput"`
	Locations  []location      `json:"locations"`
	// Content is a chunk's content block or a tool call's content list.
	Content json.RawMessage `json:"content"`
}

// chunkText is a message chunk's text.
func (u updateIn) chunkText() string {
	var c struct{ Text string }
	json.Unmarshal(u.Content, &c)
	return c.Text
}

// contentIn is one ToolCallContent.
type contentIn struct {
	Type    string  `json:"type"`
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText *string `json:"newText"`
	Content *struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		MimeType string `json:"mimeType"`
		Data     string `json:"data"` // an image's base64
	} `json:"content"`
}

func (t toolCallIn) contents() []contentIn {
	var cs []contentIn
	json.Unmarshal(t.Content, &cs)
	return cs
}

// run runs the plan through the real SDK client against the real binary and
// fails the test on any schema violation, a broken connection, or an
// agentls that outlives its stdin.
func (w *world) run(p plan) clientRun {
	w.t.Helper()
	out := w.runRaw(p)
	if out.ConnectionError != "" {
		w.t.Errorf("the SDK client's connection failed: %s", out.ConnectionError)
	}
	for _, v := range out.Violations {
		w.t.Errorf("agentls sent a message the ACP schema rejects: %s", v)
	}
	if out.Sent == 0 {
		w.t.Errorf("agentls sent nothing")
	}
	if out.Exit.Code == nil || *out.Exit.Code != 0 {
		w.t.Errorf("agentls acp did not exit 0 after stdin closed: %+v", out.Exit)
	}
	if out.PID > 0 && testenv.ProcessAlive(out.PID) {
		w.t.Errorf("agentls acp (pid %d) still runs after its stdin closed", out.PID)
	}
	return out
}

// runRaw runs the plan and returns what the client saw, asserting nothing.
func (w *world) runRaw(p plan) clientRun {
	w.t.Helper()
	node := testenv.Tool(w.t, "node")
	testenv.NodeModules(w.t)
	if p.Cmd == nil {
		p.Cmd = []string{w.bin, "acp"}
	}
	if p.Env == nil {
		p.Env = w.env()
	}
	raw, _ := json.Marshal(p)
	pf := filepath.Join(w.t.TempDir(), "plan.json")
	if err := os.WriteFile(pf, raw, 0o600); err != nil {
		w.t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(testenv.RepoRoot(), "tools", "node", "acp-client.mjs"), pf)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("acp-client: %v\n%s", err, b)
	}
	var out clientRun
	if err := json.Unmarshal(b, &out); err != nil {
		w.t.Fatalf("acp-client output: %v\n%s", err, b)
	}
	return out
}

// text is every agent_message_chunk's text, joined.
func (r clientRun) text() string {
	var b strings.Builder
	for _, u := range r.Updates {
		if u.Update.SessionUpdate == updateAgentMessage {
			b.WriteString(u.Update.chunkText())
		}
	}
	return b.String()
}
