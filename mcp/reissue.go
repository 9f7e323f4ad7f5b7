package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// MCP 2026-07-28 removed SSE resumability: a Streamable HTTP response stream
// that breaks before the request's response came loses the request (and the
// break is the request's cancellation for the server), and the client is to
// send it again as a new request with a new id. agentls does so, once, in
// headerTransport, for the requests that only read (tools/list,
// prompts/list, prompts/get, resources/list, resources/templates/list,
// resources/read); never for tools/call, whatever the tool's annotations
// claim (a server's word never loosens anything): such a call may or may
// not have run, and the caller is told so (callOn, streamBroke).

// sdkStreamBroke is the error the Go SDK (v1.8.0) gives a request whose
// Streamable HTTP response stream ended, with no event id to resume from,
// before the response came. The SDK has no sentinel for it.
const sdkStreamBroke = "request terminated without response"

// streamBroke reports whether err is a 2026-07-28 remote server's response
// stream breaking (errBodyBroke) or ending (sdkStreamBroke) before the
// response came.
// The SDK ends the whole connection when a body breaks off, and the call
// may then get that end ("connection closed") rather than the break: a
// break this connection's transport saw counts too.
func (c *conn) streamBroke(err error) bool {
	if err == nil || c.proc != nil || !c.stateless() {
		return false
	}
	return strings.Contains(err.Error(), sdkStreamBroke) || strings.Contains(err.Error(), errBodyBroke) ||
		(c.bodyBroke != nil && c.bodyBroke.Load())
}

// readOnly are the 2026-07-28 methods (by their Mcp-Method header) that
// only read, so are sent again when their response stream broke.
var readOnly = map[string]bool{"tools/list": true, "prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true}

// errBodyBroke marks a response body that broke off: the SDK puts its text
// in the error it gives the request, where streamBroke finds it.
const errBodyBroke = "the response stream broke off"

// unbroken handles a 2026-07-28 response body that breaks off (a JSON
// answer the SDK would take for a broken connection): for a read-only
// method, the whole body is read first and, if it broke, the request is
// sent once more with a new id (the id the SDK waits for is put back in the
// answer); for any other method (tools/call) a break is named errBodyBroke.
func (t *headerTransport) unbroken(req *http.Request, resp *http.Response) *http.Response {
	method := req.Header.Get("Mcp-Method")
	if method == "" {
		return resp // before 2026-07-28: the SDK resumes by Last-Event-ID
	}
	if !readOnly[method] || req.GetBody == nil {
		resp.Body = brokeNamed{resp.Body, &t.bodyBroke}
		return resp
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp
	}
	again, newID, origID, rerr := reissueRequest(req)
	if rerr == nil {
		if r2, err2 := t.base.RoundTrip(again); err2 == nil {
			if r2.StatusCode == http.StatusOK {
				body2, err3 := io.ReadAll(r2.Body)
				r2.Body.Close()
				if err3 == nil {
					r2.Body = io.NopCloser(bytes.NewReader(bytes.ReplaceAll(body2, newID, origID)))
					r2.ContentLength = -1
					r2.Header.Del("Content-Length")
					return r2
				}
				err = err3
			} else {
				r2.Body.Close()
			}
		}
	}
	resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{fmt.Errorf("%s (%v); sent once more, it broke again", errBodyBroke, err)}))
	return resp
}

// reissueRequest is req again with a new JSON-RPC id; it returns the new
// id's and the old one's JSON.
func reissueRequest(req *http.Request) (*http.Request, []byte, []byte, error) {
	rc, err := req.GetBody()
	if err != nil {
		return nil, nil, nil, err
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, nil, nil, err
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(data, &msg); err != nil || msg["id"] == nil {
		return nil, nil, nil, fmt.Errorf("not one JSON-RPC request")
	}
	origID := msg["id"]
	newID, _ := json.Marshal(fmt.Sprintf("agentls-reissue-%d", reissueSeq.Add(1)))
	msg["id"] = newID
	data, err = json.Marshal(msg)
	if err != nil {
		return nil, nil, nil, err
	}
	again := req.Clone(req.Context())
	again.Body = io.NopCloser(bytes.NewReader(data))
	again.ContentLength = int64(len(data))
	again.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	return again, newID, origID, nil
}

var reissueSeq atomic.Int64

// brokeNamed names a body's break (not its end) errBodyBroke, and notes
// that one broke in broke.
type brokeNamed struct {
	io.ReadCloser
	broke *atomic.Bool
}

func (b brokeNamed) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.broke.Store(true)
		err = fmt.Errorf("%s: %w", errBodyBroke, err)
	}
	return n, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
