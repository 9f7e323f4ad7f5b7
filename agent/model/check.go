package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Check tells whether the resolved endpoint answers and accepts the key,
// without spending tokens: it lists the endpoint's models (GET /v1/models).
// listed reports whether the configured model is among them; an endpoint
// that cannot list models counts as reachable. Errors are those Stream
// would return (authentication, connection, nothing configured). It is for
// `agentls doctor`.
func Check(ctx context.Context, r Resolved, key string, client *http.Client) (listed bool, err error) {
	p, err := Open(r, key, client)
	if err != nil {
		return false, err
	}
	var ep *endpoint
	switch p := p.(type) {
	case *anthropic:
		ep = &p.ep
	case *openai:
		ep = &p.ep
	case *fallback:
		ep = &p.Provider.(*openai).ep
	}
	listURL := strings.TrimSuffix(ep.url, "/messages")
	listURL = strings.TrimSuffix(listURL, "/chat/completions") + "/models"
	listed, err = ep.listModels(ctx, listURL)
	var ce *ConnectError
	if r.Fallback && errors.As(err, &ce) {
		return false, &NoModelError{URL: r.BaseURL, Err: ce}
	}
	return listed, err
}

func (e *endpoint) listModels(ctx context.Context, listURL string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, listURL, nil)
	if err != nil {
		return false, fmt.Errorf("%s: bad base_url: %w", e.provider, err)
	}
	for k, v := range e.header {
		req.Header[k] = v
	}
	req.Header.Del("Content-Type")
	req.Header.Set("Accept", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("%s: %w", e.provider, ctx.Err())
		}
		return false, &ConnectError{Provider: e.provider, URL: listURL, Err: err}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return false, nil // reachable, but it does not list models
	case resp.StatusCode != http.StatusOK:
		return false, e.statusError(resp.StatusCode, raw)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(raw, &list) != nil {
		return false, nil
	}
	for _, m := range list.Data {
		// Ollama lists "qwen2.5-coder:latest" for "qwen2.5-coder".
		if m.ID == e.model || m.ID == e.model+":latest" {
			return true, nil
		}
	}
	return false, nil
}
