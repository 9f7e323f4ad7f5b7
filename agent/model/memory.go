package model

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"sync"
)

// Memory keeps what endpoints said about themselves, per endpoint and
// model, in a file of agentls's state folder (endpoints.json), so a later
// process starts from it: the context window a server reported or named in
// an error, and the output-budget field it takes. A nil Memory keeps
// nothing.
type Memory struct {
	path string
	mu   sync.Mutex
}

// Remembered is what one endpoint and model said.
type Remembered struct {
	// Window is the context window the server reported (0: none), and
	// WindowFrom where the figure came from ("llama.cpp /props n_ctx").
	Window     int    `json:"window,omitempty"`
	WindowFrom string `json:"windowFrom,omitempty"`
	// TokenField is "max_completion_tokens" once the endpoint refused
	// max_tokens, "max_tokens" once it refused the other ("": neither).
	TokenField string `json:"tokenField,omitempty"`
}

// OpenMemory is the memory kept in dir (the state folder); "" keeps nothing.
func OpenMemory(dir string) *Memory {
	if dir == "" {
		return nil
	}
	return &Memory{path: filepath.Join(dir, "endpoints.json")}
}

// memoryKey names an endpoint and model in the file: the URL without user
// info, query or fragment, so no credential a base_url carries is written.
func memoryKey(endpoint, model string) string {
	if u, err := url.Parse(endpoint); err == nil {
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		endpoint = u.String()
	}
	return endpoint + " " + model
}

func (m *Memory) load() map[string]Remembered {
	all := map[string]Remembered{}
	if b, err := os.ReadFile(m.path); err == nil {
		json.Unmarshal(b, &all) // a broken file is started afresh
	}
	return all
}

// Get is what endpoint said for model (the zero Remembered when nothing).
func (m *Memory) Get(endpoint, model string) Remembered {
	if m == nil {
		return Remembered{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.load()[memoryKey(endpoint, model)]
}

// Update changes what is kept for endpoint and model, writing the file
// whole (a temporary file renamed over it).
func (m *Memory) Update(endpoint, model string, f func(*Remembered)) error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	all := m.load()
	r := all[memoryKey(endpoint, model)]
	f(&r)
	all[memoryKey(endpoint, model)] = r
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(m.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(m.path), ".endpoints-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), m.path)
}
