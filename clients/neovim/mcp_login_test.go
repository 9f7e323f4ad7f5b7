package neovim_test

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// TestLoginFromMcpFloat: a remote server behind OAuth fails for want of a
// token; `l` on its line in :AgentMcp runs agentls.mcp.login, the
// authorization page reaches the browser (window/showDocument through
// vim.ui.open on 0.10, the URL in a message on 0.7.2; here the test's
// browser, which follows it back to agentls's loopback listener), and the
// message says the server is logged in and connected.
func TestLoginFromMcpFloat(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	target, _ := url.Parse(everything.Base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			as := testenv.NewAuthServer(t)
			rs := as.Protect(t, func(_ string, w http.ResponseWriter, r *http.Request) { proxy.ServeHTTP(w, r) })
			w := newWorld(t, "openai")
			f, err := os.OpenFile(w.configPath(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString("\n[mcp.servers.secure]\nurl = \"" + rs.URL + "/mcp\"\n")
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			urlFile := filepath.Join(w.dir, "browser-url")
			w.env = append(w.env, "AGENTLS_E2E_URLFILE="+urlFile)
			// The browser: once the editor hands it a URL, it follows it.
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					if b, err := os.ReadFile(urlFile); err == nil && len(b) > 0 {
						if resp, err := http.Get(string(b)); err == nil {
							resp.Body.Close()
						}
						return
					}
				}
			}()
			defer func() { close(stop); wg.Wait() }()

			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "login.lua"))
			opened, _ := res["opened"].(string)
			want := "message" // 0.7.2 has no window/showDocument
			if ed.label != "0.7.2" {
				want = "vim.ui.open"
			}
			if res["via"] != want {
				t.Errorf("the URL came by %v, want %s", res["via"], want)
			}
			if !strings.HasPrefix(opened, as.Srv.URL+"/authorize?") {
				t.Errorf("the browser got %q, want the authorization page", opened)
			}
			messages := strings.Join(strs(res["messages"]), "\n")
			if !strings.Contains(messages, "agentls: MCP server 'secure': logged in (connected)") {
				t.Errorf("messages:\n%s", messages)
			}
			if n := as.Authorized.Load(); n != 1 {
				t.Errorf("%d authorization requests, want 1", n)
			}
			if help := strings.Join(strs(res["help"]), "\n"); !strings.Contains(help, "l log in (remote)") {
				t.Errorf("the float's help lacks the login key:\n%s", help)
			}
		})
	}
}
