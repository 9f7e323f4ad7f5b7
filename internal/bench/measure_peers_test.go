package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// The peers' comparison (figure 19, scripts/peers.sh): agentls and the
// coding agents scripts/peers.sh could install, each against a bare loop
// (internal/bench/bareloop: the MCP servers' tools offered as they list
// them, nothing else) in the same run, on the same scripted fake model
// and the same real MCP servers. Three figures per agent:
//
//   - request bytes: the tools block of the first model request with
//     server-everything connected (and the whole body), vs the bare loop's;
//   - RSS: the peak of the sum of the proportional set sizes of the
//     agent's processes (its guard and helpers included, the MCP servers
//     not) during a one-call task with 1 and with 10 fault servers;
//   - per-turn time: what a tool turn adds, (task of 21 calls - task of 1)
//     / 20, vs the same for the bare loop; in wall time, and in CPU time
//     (user + system of the agent's process and every descendant it
//     waited for, its MCP servers' included as the bare loop's are: the
//     rusage wait4 returns), which the other work of a shared machine
//     moves far less than the wall clock.
//
// A peer is given as PEERS_NAME=command line (words split on spaces), e.g.
// PEERS_QWEN_CODE="node .../cli.js"; scripts/peers.sh sets them.
// PEERS_AGENTLS_BASE=/path/to/agentls adds another build of agentls
// ("agentls-base"), to compare a change with the commit before it in the
// same run.

// peerMarker is in every fault server's arguments (tests find processes
// by it).
const peerMarker = "agentls-peers-mcp-server"

// agentUnderTest starts a task: prompt, a fake model at url (OpenAI-shaped,
// without /v1), MCP servers "NAME PROGRAM ARGS..." and a folder of its own.
type agentUnderTest struct {
	name    string
	command func(b *testing.B, url, prompt string, servers [][]string, dir string) *exec.Cmd
}

func bareAgent(b *testing.B) agentUnderTest {
	bin := testenv.GoBinary(b, "./internal/bench/bareloop")
	return agentUnderTest{"bare", func(b *testing.B, url, prompt string, servers [][]string, dir string) *exec.Cmd {
		args := []string{"-model", url + "/v1", "-prompt", prompt}
		for _, s := range servers {
			args = append(args, "-server", strings.Join(s, " "))
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		return cmd
	}}
}

func agentlsAgent(b *testing.B) agentUnderTest {
	return agentlsAt("agentls", testenv.Agentls(b))
}

// agentlsAt is the agentls binary bin (another build, for comparing two
// commits in one run), named name.
func agentlsAt(name, bin string) agentUnderTest {
	return agentUnderTest{name, func(b *testing.B, url, prompt string, servers [][]string, dir string) *exec.Cmd {
		cfg := fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"fake-model\"\ncontext_window = 200000\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n\n[mcp]\nstartup_wait = \"2m\"\n\n[mcp.policy]\n\"*\" = \"allow\"\n\n", url+"/v1")
		for _, s := range servers {
			q := make([]string, len(s)-2)
			for i, a := range s[2:] {
				q[i] = strconv.Quote(a)
			}
			cfg += fmt.Sprintf("[mcp.servers.%s]\ncommand = %q\nargs = [%s]\nconnect_timeout = \"2m\"\n\n", s[0], s[1], strings.Join(q, ", "))
		}
		config := filepath.Join(dir, "..", "agentls.toml")
		if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, "run", prompt)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "AGENTLS_CONFIG="+config, "XDG_STATE_HOME="+filepath.Join(dir, "..", "state"), "AGENTLS_TEST_KEY=test")
		return cmd
	}}
}

// qwenAgent is qwen-code (npm @qwen-code/qwen-code) in its one-shot mode,
// every tool allowed (--yolo), with its home in the task's folder.
func qwenAgent(words []string) agentUnderTest {
	return agentUnderTest{"qwen-code", func(b *testing.B, url, prompt string, servers [][]string, dir string) *exec.Cmd {
		mcp := map[string]any{}
		for _, s := range servers {
			mcp[s[0]] = map[string]any{"command": s[1], "args": s[2:], "trust": true, "timeout": 120000}
		}
		cfg, _ := json.Marshal(map[string]any{"mcpServers": mcp})
		home := filepath.Join(dir, "..", "home")
		os.MkdirAll(filepath.Join(home, ".qwen"), 0o755)
		settings := `{"security":{"auth":{"selectedType":"openai"}},"telemetry":{"enabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true},"privacy":{"usageStatisticsEnabled":false}}`
		os.WriteFile(filepath.Join(home, ".qwen", "settings.json"), []byte(settings), 0o600)
		args := append(append([]string(nil), words[1:]...), "--yolo", "-m", "fake-model", "--openai-base-url", url+"/v1", "--openai-api-key", "test",
			"--mcp-config", string(cfg), "-p", prompt)
		cmd := exec.Command(words[0], args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+url+"/v1", "OPENAI_MODEL=fake-model", "NO_COLOR=1", "CI=")
		return cmd
	}}
}

// peers are the agents PEERS_* name, sorted.
func peers(b *testing.B) []agentUnderTest {
	var out []agentUnderTest
	if bin := os.Getenv("PEERS_AGENTLS_BASE"); bin != "" {
		out = append(out, agentlsAt("agentls-base", bin))
	}
	if v := strings.Fields(os.Getenv("PEERS_QWEN_CODE")); len(v) > 0 {
		out = append(out, qwenAgent(v))
	}
	return out
}

// peerRequest is what echoTurns reads of an OpenAI request.
type peerRequest struct {
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name       string `json:"name"`
			Parameters struct {
				Required []string `json:"required"`
			} `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

// calls counts the calls in the request's history to tools whose name ends
// with suffix.
func (r peerRequest) calls(suffix string) int {
	n := 0
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			if strings.HasSuffix(c.Function.Name, suffix) {
				n++
			}
		}
	}
	return n
}

func (r peerRequest) offers(name string) bool {
	for _, t := range r.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// searched is the echo tool a tool_search answered in the history, if any.
func (r peerRequest) searched() *struct {
	Name     string   `json:"name"`
	Required []string `json:"required"`
} {
	for _, m := range r.Messages {
		if m.Role != "tool" {
			continue
		}
		var text string
		var parts []struct{ Text string }
		if json.Unmarshal(m.Content, &text) != nil && json.Unmarshal(m.Content, &parts) == nil {
			for _, p := range parts {
				text += p.Text
			}
		}
		for _, line := range strings.Split(text, "\n") {
			decl, ok := strings.CutPrefix(line, "<function>")
			if !ok {
				continue
			}
			var f struct {
				Name   string `json:"name"`
				Schema struct {
					Required []string `json:"required"`
				} `json:"parametersJsonSchema"`
			}
			if json.Unmarshal([]byte(strings.TrimSuffix(decl, "</function>")), &f) == nil && strings.HasSuffix(f.Name, "echo") {
				return &struct {
					Name     string   `json:"name"`
					Required []string `json:"required"`
				}{f.Name, f.Schema.Required}
			}
		}
	}
	return nil
}

// echoTurns answers every request offering an echo tool with a call to it
// until the history holds calls of them, then "done". A request that
// offers no echo tool but a tool search (qwen-code offers MCP tools that
// way, agentls past 128 tools) gets one search for "echo" first. Any other request (a peer's side
// requests: titles, summaries) gets "done".
func echoTurns(calls int) func(modeltest.Request) (modeltest.Turn, bool) {
	return func(req modeltest.Request) (modeltest.Turn, bool) {
		var r peerRequest
		json.Unmarshal(req.Body, &r)
		call := func(name string, required []string, value string) modeltest.Turn {
			args := map[string]string{}
			for _, p := range required {
				args[p] = value
			}
			in, _ := json.Marshal(args)
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: name, Input: string(in)}}}
		}
		done := r.calls("echo") + r.calls("tool_call")
		if done >= calls {
			return modeltest.Turn{Text: "done"}, true
		}
		// Each call says something else: qwen-code halts a run that
		// repeats a call.
		hi := fmt.Sprintf("hi %d", done)
		// qwen-code: what tool_search found is called through tool_call.
		if found := r.searched(); found != nil && r.offers("tool_call") {
			args := map[string]string{}
			for _, p := range found.Required {
				args[p] = hi
			}
			in, _ := json.Marshal(map[string]any{"name": found.Name, "arguments": args})
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "tool_call", Input: string(in)}}}, true
		}
		for _, t := range r.Tools {
			if strings.HasSuffix(t.Function.Name, "echo") {
				return call(t.Function.Name, t.Function.Parameters.Required, hi), true
			}
		}
		for _, t := range r.Tools {
			if (t.Function.Name == "tool_search" || t.Function.Name == "search_tools") && r.calls(t.Function.Name) == 0 {
				return call(t.Function.Name, t.Function.Parameters.Required, "echo"), true
			}
		}
		return modeltest.Turn{Text: "done"}, true
	}
}

// task is one run of an agent: its time to exit, the CPU time of its
// process tree (user + system, the agent and the descendants it waited
// for), its peak memory (MB, its processes but the servers summed,
// treePSS), the model requests it made and, run under valgrind
// (peerTaskCounted), the instructions its own process executed.
type task struct {
	took  time.Duration
	cpu   time.Duration
	rss   float64
	reqs  []modeltest.Request
	instr int64
}

func peerTask(b *testing.B, a agentUnderTest, calls int, servers [][]string) task {
	return runPeerTask(b, a, calls, servers, "")
}

// peerTaskCounted is peerTask with the agent's own process run under
// valgrind at valgrind's path (cachegrind, no cache simulation), which
// counts the instructions it executes in user space; its children (the
// MCP servers, agentls's guard) run uncounted, and so does the kernel's
// work for it (CPU time has that). Its times and memory are valgrind's,
// not the agent's. Callgrind counts the same instructions but asserts on
// a signal arriving while it handles another, which a Go program's
// signals (SIGURG preemption, SIGCHLD) make it do; cachegrind does not.
func peerTaskCounted(b *testing.B, a agentUnderTest, calls int, servers [][]string, valgrind string) task {
	return runPeerTask(b, a, calls, servers, valgrind)
}

func runPeerTask(b *testing.B, a agentUnderTest, calls int, servers [][]string, valgrind string) task {
	serverExe := servers[0][1]
	b.Helper()
	m := modeltest.New(b)
	m.SetLimits(modeltest.Limits{AnyTools: true}) // qwen-code's definitions break OpenAI's rules
	m.Answer(echoTurns(calls))
	dir := filepath.Join(b.TempDir(), "ws")
	os.MkdirAll(dir, 0o755)
	cmd := a.command(b, m.URL(), "call the echo tool", servers, dir)
	counts := filepath.Join(dir, "..", "cachegrind.out")
	if valgrind != "" {
		cmd.Args = append([]string{valgrind, "--tool=cachegrind", "--cache-sim=no", "--trace-children=no", "--cachegrind-out-file=" + counts, "--"}, append([]string{cmd.Path}, cmd.Args[1:]...)...)
		cmd.Path = valgrind
		// Preemption by signal makes the count depend on when the
		// signals land; the counted process preempts at function
		// entries only.
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		cmd.Env = append(cmd.Env, "GODEBUG=asyncpreemptoff=1")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatalf("%s: %v", a.name, err)
	}
	var mu sync.Mutex
	peak := 0.0
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if rss := treePSS(cmd.Process.Pid, serverExe); rss > 0 {
				mu.Lock()
				peak = max(peak, rss)
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	err := cmd.Wait()
	took := time.Since(start)
	close(stop)
	<-sampled
	if err != nil {
		b.Fatalf("%s: %v\n%s", a.name, err, out.String())
	}
	tools := 0
	for _, r := range m.ModelRequests("") {
		if bytes.Contains(r.Body, []byte("echo")) {
			tools++
		}
	}
	results := 0
	for _, req := range m.ModelRequests("") {
		var r peerRequest
		json.Unmarshal(req.Body, &r)
		results = max(results, r.calls("echo")+r.calls("tool_call"))
	}
	if results < calls {
		var seen []string
		for _, r := range m.ModelRequests("") {
			seen = append(seen, fmt.Sprintf("%d tools: %s", len(r.ToolNames()), strings.Join(r.ToolNames(), " ")))
		}
		b.Fatalf("%s made %d of the %d echo calls the model asked for:\n%s\nits requests:\n%s", a.name, results, calls, out.String(), strings.Join(seen, "\n"))
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	t := task{took: took, cpu: cpu, rss: peak, reqs: m.ModelRequests("")}
	if valgrind != "" {
		t.instr = valgrindTotal(b, counts)
		// PEERS_VALGRIND_KEEP=FOLDER keeps each count file, per
		// function, for cg_annotate (its --diff shows what the turns
		// added), as AGENT-CALLScalls.out, the last round's.
		if keep := os.Getenv("PEERS_VALGRIND_KEEP"); keep != "" {
			data, _ := os.ReadFile(counts)
			if err := os.WriteFile(filepath.Join(keep, fmt.Sprintf("%s-%dcalls.out", a.name, calls)), data, 0o644); err != nil {
				b.Fatalf("PEERS_VALGRIND_KEEP: %v (expected a folder that exists)", err)
			}
		}
	}
	return t
}

// medianOf is the middle of v (the mean of the two middle ones for an even
// count); 0 for none.
func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// valgrindTotal is the instruction count of a cachegrind (or callgrind)
// output file: the first number of its "summary:" ("totals:") line.
func valgrindTotal(b *testing.B, path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatalf("valgrind wrote no counts: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		for _, key := range []string{"totals:", "summary:"} {
			if rest, ok := strings.CutPrefix(line, key); ok {
				f := strings.Fields(rest)
				if len(f) > 0 {
					if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
						return n
					}
				}
			}
		}
	}
	b.Fatalf("%s has no totals: line", path)
	return 0
}

// treePSS is the sum of the proportional set sizes (MB: each shared page
// split among the processes sharing it, so a fork that has not yet exec'd
// counts once) of pid and its descendants, the MCP servers (processes
// running serverExe) and theirs left out.
func treePSS(pid int, serverExe string) float64 {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parens.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], p)
			}
		}
	}
	total := 0.0
	var walk func(int)
	walk = func(p int) {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", p)); p != pid && exe == serverExe {
			return
		}
		total += pss(p)
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return total
}

// pss is a process's Pss from /proc/PID/smaps_rollup, in MB.
func pss(pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}

// toolsBytes is the size of the tools field of a request body.
func toolsBytes(body []byte) int {
	var v struct {
		Tools json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &v)
	return len(v.Tools)
}

// BenchmarkPeers is figure 19; see the top of this file.
func BenchmarkPeers(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("the RSS sum reads /proc")
	}
	node := testenv.Tool(b, "node")
	everything := []string{"everything", node, testenv.NodeBin(b, "mcp-server-everything"), "stdio"}
	fault := testenv.GoBinary(b, "./internal/faultserver")
	faultServers := func(n int) [][]string {
		var out [][]string
		for i := 0; i < n; i++ {
			out = append(out, []string{fmt.Sprintf("f%d", i), fault, "-marker", peerMarker})
		}
		return out
	}
	bare := bareAgent(b)
	for _, a := range append([]agentUnderTest{agentlsAgent(b)}, peers(b)...) {
		b.Run("agent="+a.name+"/bytes", func(b *testing.B) {
			var subj, base task
			for i := 0; i < b.N; i++ {
				subj = peerTask(b, a, 1, [][]string{everything})
				base = peerTask(b, bare, 1, [][]string{everything})
			}
			first := func(t task) []byte {
				for _, r := range t.reqs {
					if bytes.Contains(r.Body, []byte("echo")) {
						return r.Body
					}
				}
				b.Fatalf("no request offered the echo tool")
				return nil
			}
			ReportPair(b, "tools-", "B", float64(toolsBytes(first(subj))), float64(toolsBytes(first(base))))
			ReportPair(b, "body-", "B", float64(len(first(subj))), float64(len(first(base))))
			b.ReportMetric(float64(len(subj.reqs)), "requests")
		})
		for _, n := range []int{1, 10} {
			b.Run(fmt.Sprintf("agent=%s/rss,servers=%d", a.name, n), func(b *testing.B) {
				var subj, base []float64
				for i := 0; i < b.N; i++ {
					subj = append(subj, peerTask(b, a, 1, faultServers(n)).rss)
					base = append(base, peerTask(b, bare, 1, faultServers(n)).rss)
				}
				ReportPair(b, "", "MB", maxOf(subj), maxOf(base))
			})
		}
		b.Run("agent="+a.name+"/turn", func(b *testing.B) {
			// 21 calls against 1: a start's noise (seconds for a Node
			// program) is spread over 20 turns.
			const many = 21
			perTurn := func(a agentUnderTest) (wall, cpu time.Duration) {
				one := peerTask(b, a, 1, faultServers(1))
				all := peerTask(b, a, many, faultServers(1))
				return (all.took - one.took) / (many - 1), (all.cpu - one.cpu) / (many - 1)
			}
			var subj, base, subjCPU, baseCPU []time.Duration
			for i := 0; i < b.N; i++ {
				w, c := perTurn(a)
				subj, subjCPU = append(subj, w), append(subjCPU, c)
				w, c = perTurn(bare)
				base, baseCPU = append(base, w), append(baseCPU, c)
			}
			ReportDurations(b, "", subj, base)
			ReportDurations(b, "cpu-", subjCPU, baseCPU)
		})
		b.Run("agent="+a.name+"/instr", func(b *testing.B) {
			// The instructions a tool turn adds to the agent's own process,
			// (21 calls - 1) / 20, counted by valgrind: they do not move
			// with the machine's other work as time does. Slow (valgrind
			// runs a Go program tens of times slower), so only on request.
			valgrind := os.Getenv("PEERS_VALGRIND")
			if valgrind == "" {
				b.Skip("PEERS_VALGRIND=valgrind's path counts instructions (scripts/peers.sh --instructions)")
			}
			const many = 21
			perTurn := func(a agentUnderTest) (one, turn float64) {
				t1 := peerTaskCounted(b, a, 1, faultServers(1), valgrind)
				tn := peerTaskCounted(b, a, many, faultServers(1), valgrind)
				return float64(t1.instr) / 1e6, float64(tn.instr-t1.instr) / (many - 1) / 1e6
			}
			var subj, base, subjTask, baseTask []float64
			for i := 0; i < b.N; i++ {
				o, t := perTurn(a)
				subjTask, subj = append(subjTask, o), append(subj, t)
				o, t = perTurn(bare)
				baseTask, base = append(baseTask, o), append(base, t)
			}
			ReportPair(b, "", "Minstr", medianOf(subj), medianOf(base))
			b.ReportMetric(medianOf(subj)-medianOf(base), "added-Minstr")
			ReportPair(b, "task-", "Minstr", medianOf(subjTask), medianOf(baseTask))
		})

	}
}
