package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources lists the resources of every connected server that has any and
// that keep lets through, in parallel, each within its list timeout. keep
// (nil: all) gets the names of those servers at once, before any is asked,
// and returns the ones to ask. Servers that fail are named in the error; the
// resources of the others are still returned.
func (r *Registry) Resources(ctx context.Context, keep func(servers []string) []string) ([]Resource, error) {
	type target struct {
		name    string
		c       *conn
		timeout time.Duration
	}
	var targets []target
	r.mu.Lock()
	for _, name := range r.order {
		srv := r.servers[name]
		if srv.state == Connected && srv.conn.caps != nil && srv.conn.caps.Resources != nil {
			targets = append(targets, target{name, srv.conn, srv.cfg.EffectiveListTimeout()})
		}
	}
	r.mu.Unlock()
	if keep != nil { // outside the lock: keep may read the trust store, or ask the user
		names := make([]string, len(targets))
		for i, t := range targets {
			names[i] = t.name
		}
		kept := keep(names)
		targets = slices.DeleteFunc(targets, func(t target) bool { return !slices.Contains(kept, t.name) })
	}
	var (
		mu   sync.Mutex
		out  []Resource
		errs []error
		wg   sync.WaitGroup
	)
	for _, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lctx, cancel := context.WithTimeout(ctx, t.timeout)
			defer cancel()
			stop := context.AfterFunc(t.c.ctx, cancel)
			defer stop()
			var got []Resource
			for res, err := range t.c.session.Resources(lctx, nil) {
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s: resources/list: %w", t.name, err))
					mu.Unlock()
					return
				}
				got = append(got, Resource{Server: t.name, URI: res.URI, Name: res.Name, Description: res.Description, MIMEType: res.MIMEType})
			}
			for rt, err := range t.c.session.ResourceTemplates(lctx, nil) {
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s: resources/templates/list: %w", t.name, err))
					mu.Unlock()
					break // the resources it listed still count
				}
				got = append(got, Resource{Server: t.name, URITemplate: rt.URITemplate, Name: rt.Name, Description: rt.Description, MIMEType: rt.MIMEType})
			}
			mu.Lock()
			out = append(out, got...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].URI+out[i].URITemplate < out[j].URI+out[j].URITemplate
	})
	return out, errors.Join(errs...)
}

// ReadResource reads one resource from a server within its call timeout.
// Text contents are joined; otherwise the first blob is returned.
func (r *Registry) ReadResource(ctx context.Context, server, uri string) (*ResourceContent, error) {
	r.mu.Lock()
	srv, ok := r.servers[server]
	if !ok {
		r.mu.Unlock()
		return nil, fmt.Errorf("mcp: no server named %q is configured", server)
	}
	c, state := srv.conn, srv.state
	r.mu.Unlock()
	if state != Connected || c == nil {
		return nil, fmt.Errorf("mcp: %s is not connected (%s)", server, state)
	}
	timeout := srv.cfg.EffectiveCallTimeout()
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	res, err := c.session.ReadResource(nobodyToAsk(rctx), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("mcp: %s: resources/read %s: %w", server, uri, err)
	}
	out := &ResourceContent{URI: uri}
	var texts []string
	for _, rc := range res.Contents {
		if rc == nil {
			continue
		}
		if out.MIMEType == "" {
			out.MIMEType = rc.MIMEType
		}
		switch {
		case rc.Text != "":
			texts = append(texts, rc.Text)
		case rc.Blob != nil && out.Blob == nil:
			out.Blob = rc.Blob
		}
	}
	if len(texts) > 0 {
		out.Text = capText(strings.Join(texts, "\n"), r.opts.ResultMaxBytes)
		out.Blob = nil
	}
	return out, nil
}
