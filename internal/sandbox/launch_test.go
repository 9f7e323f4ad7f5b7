package sandbox

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

func TestMain(m *testing.M) {
	Hook()
	if spec := os.Getenv(spawnHostEnv); spec != "" {
		runSpawnHost(spec)
	}
	testenv.Main(m)
}

// needLandlock skips (locally) or fails (CI) without kernel support.
func needLandlock(t *testing.T) {
	t.Helper()
	if s := Supported(); !s.Filesystem || !s.TCP || !s.SocketFilter {
		testenv.Missing(t, "Landlock ABI 4 and the socket filter ("+s.String()+")", "run on Linux 6.7 or later with Landlock enabled")
	}
}

// runConfined runs argv (argv[0] looked up on PATH) confined to p, in dir,
// and returns its combined output and exit status: started through Wrap,
// or through Spawn while viaSpawn is set.
func runConfined(t *testing.T, p Policy, dir string, argv ...string) (string, int) {
	t.Helper()
	path, err := exec.LookPath(argv[0])
	if err != nil {
		testenv.Missing(t, argv[0], "install it")
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	env := []string{"PATH=/usr/bin:/bin", "LANG=C", "HOME=" + dir}
	if viaSpawn {
		return spawnConfined(t, p, Cmd{Path: path, Args: argv, Dir: dir, Env: env})
	}
	exe, args, err := Wrap(p, path, argv)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := &exec.Cmd{Path: exe, Args: args, Dir: dir, Stdout: &out, Stderr: &out, Env: env}
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

// fixture is a workspace with a file, a link to a secret outside it, and
// that secret.
type fixture struct{ ws, outside, secret string }

func newFixture(t *testing.T) fixture {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	f := fixture{ws: filepath.Join(root, "ws"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{f.ws, f.outside, filepath.Join(f.ws, "docs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.secret = filepath.Join(f.outside, "id_key")
	write(t, f.secret, "SECRET-BYTES\n")
	write(t, filepath.Join(f.ws, "notes.txt"), "workspace text\n")
	if err := os.Symlink(f.outside, filepath.Join(f.ws, "docs", "ref")); err != nil {
		t.Fatal(err)
	}
	return f
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o755); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) readOnly() Policy { return Policy{Read: []string{f.ws}}.WithSystem() }

func TestConfinedReadsOnlyTheWorkspace(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	out, code := runConfined(t, f.readOnly(), f.ws, "cat", "notes.txt")
	if code != 0 || out != "workspace text\n" {
		t.Fatalf("cat of a workspace file: %q, exit %d; want its text", out, code)
	}
	for _, argv := range [][]string{
		{"cat", f.secret},
		{"cat", "docs/ref/id_key"}, // a link out of the workspace
		{"grep", "-R", "SECRET", "."},
		{"grep", "-R", "SECRET", "docs/ref/"},
	} {
		out, _ := runConfined(t, f.readOnly(), f.ws, argv...)
		if strings.Contains(out, "SECRET-BYTES") {
			t.Errorf("%v returned the secret outside the workspace: %q", argv, out)
		}
	}
	out, _ = runConfined(t, f.readOnly(), f.ws, "cat", "/etc/shadow")
	if !strings.Contains(out, "Permission denied") {
		t.Errorf("cat /etc/shadow confined: %q, want Permission denied", out)
	}
}

func TestConfinedWritesNothingOutsideWrite(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	state := filepath.Join(f.outside, "state")
	os.Mkdir(state, 0o755)
	p := Policy{Read: []string{f.ws}, Write: []string{state}}.WithSystem()
	for _, argv := range [][]string{
		{"touch", "made-in-ws"},
		{"touch", filepath.Join(f.outside, "made-outside")},
		{"sort", "-o", "notes.txt", "notes.txt"},
		{"sh", "-c", "echo x > made-by-shell"},
	} {
		runConfined(t, p, f.ws, argv...)
	}
	for _, p := range []string{"made-in-ws", "made-by-shell"} {
		if _, err := os.Stat(filepath.Join(f.ws, p)); err == nil {
			t.Errorf("%s was written in the read-only workspace", p)
		}
	}
	if _, err := os.Stat(filepath.Join(f.outside, "made-outside")); err == nil {
		t.Error("a file was written outside every allowed folder")
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "notes.txt")); string(b) != "workspace text\n" {
		t.Errorf("notes.txt changed: %q", b)
	}
	if out, code := runConfined(t, p, f.ws, "touch", filepath.Join(state, "ok")); code != 0 {
		t.Errorf("touch in the Write folder failed: %s", out)
	}
}

func TestConfinedCannotRunWorkspacePrograms(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	write(t, filepath.Join(f.ws, "evil.sh"), "#!/bin/sh\necho RAN-EVIL\n")
	out, code := runConfined(t, f.readOnly(), f.ws, "sh", "-c", "./evil.sh")
	if strings.Contains(out, "RAN-EVIL") || code == 0 {
		t.Errorf("a program in the workspace ran confined: %q exit %d", out, code)
	}
}

func TestConfinedNetwork(t *testing.T) {
	needLandlock(t)
	testenv.Tool(t, "python3")
	f := newFixture(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := "import socket; socket.create_connection(('127.0.0.1', " + strconv.Itoa(port) + ")); print('CONNECTED')"
	udp := "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', 53)); print('SENT')"
	unixSock := "import socket; socket.socket(socket.AF_UNIX); print('UNIX')"

	for _, tc := range []struct {
		name, code, marker string
		p                  Policy
		want               bool
	}{
		{"no network: TCP refused", connect, "CONNECTED", f.readOnly(), false},
		{"no network: UDP refused", udp, "SENT", f.readOnly(), false},
		{"no network: unix socket refused", unixSock, "UNIX", f.readOnly(), false},
		{"allowed port connects", connect, "CONNECTED", Policy{Read: []string{f.ws}, Connect: []uint16{uint16(port)}}.WithSystem(), true},
		{"another port is refused", connect, "CONNECTED", Policy{Read: []string{f.ws}, Connect: []uint16{uint16(port + 1)}}.WithSystem(), false},
		{"ports allowed, UDP still refused", udp, "SENT", Policy{Read: []string{f.ws}, Connect: []uint16{uint16(port)}}.WithSystem(), false},
		{"network allowed", connect, "CONNECTED", Policy{Read: []string{f.ws}, Network: true}.WithSystem(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := runConfined(t, tc.p, f.ws, "/usr/bin/python3", "-c", tc.code)
			if got := strings.Contains(out, tc.marker); got != tc.want {
				t.Errorf("printed %s = %v, want %v; output:\n%s", tc.marker, got, tc.want, out)
			}
		})
	}
}

func TestWrapWithoutHookRefuses(t *testing.T) {
	hookInstalled.Store(false)
	defer hookInstalled.Store(true)
	if _, _, err := Wrap(Policy{}, "/bin/true", []string{"true"}); err != ErrNoLauncher {
		t.Fatalf("Wrap without the hook: %v, want ErrNoLauncher", err)
	}
}

func TestLauncherNeverRunsUnconfined(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	// A Read path that exists but cannot be opened makes the policy fail.
	p := Policy{Exec: []string{"/usr", "/bin", "/lib", "/lib64"}, Read: []string{"\x00bad"}}
	out, code := runConfined(t, p, f.ws, "echo", "RAN")
	if code != launcherFailed || strings.Contains(out, "RAN") {
		t.Fatalf("a policy the kernel could not take: exit %d, output %q; want exit %d and no run", code, out, launcherFailed)
	}
}
