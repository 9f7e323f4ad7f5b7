package config

import (
	"strings"
	"testing"
)

func TestExpandEnv(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "EMPTY": "", "TOKEN": "t0k"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name, in, want, wantErr string
	}{
		{name: "no dollar is unchanged", in: "plain value", want: "plain value"},
		{name: "${VAR} expands", in: "${HOME}/bin", want: "/home/u/bin"},
		{name: "two variables expand", in: "${HOME}:${TOKEN}", want: "/home/u:t0k"},
		{name: "set empty ${VAR} expands to empty", in: "[${EMPTY}]", want: "[]"},
		{name: "default used when unset", in: "${NOPE:-fallback}", want: "fallback"},
		{name: "default used when empty", in: "${EMPTY:-fallback}", want: "fallback"},
		{name: "default ignored when set", in: "${TOKEN:-fallback}", want: "t0k"},
		{name: "empty default is allowed", in: "${NOPE:-}", want: ""},
		{name: "default may hold colons and dashes", in: "${NOPE:-a:-b}", want: "a:-b"},
		{name: "$$ is a literal dollar", in: "pa$$word $${HOME}", want: "pa$word ${HOME}"},
		{name: "lone trailing dollar is literal", in: "cost: 5$", want: "cost: 5$"},
		{name: "dollar before a non-name is literal", in: "$1 and $-", want: "$1 and $-"},
		{name: "unset without default names the variable and the fix", in: "${GH_TOKEN}", wantErr: "${GH_TOKEN} is not set: set GH_TOKEN in agentls's environment, or write ${GH_TOKEN:-default}"},
		{name: "unterminated brace is an error", in: "x${HOME", wantErr: `unterminated "${HOME"`},
		{name: "bad variable name is an error", in: "${1ABC}", wantErr: `"1ABC" is not a variable name`},
		{name: "empty braces are an error", in: "${}", wantErr: `"" is not a variable name`},
		{name: "bare $VAR is an error saying how to write it", in: "$HOME/bin", wantErr: "write ${HOME} to expand it, or $$HOME for a literal $"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExpandEnv(tc.in, lookup)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ExpandEnv(%q) = %q, %v; want error containing %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ExpandEnv(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestExpandedEnv(t *testing.T) {
	lookup := func(k string) (string, bool) {
		if k == "SET" {
			return "yes", true
		}
		return "", false
	}
	s := Server{Env: map[string]string{"A": "${SET}", "B": "${UNSET:-dflt}", "C": "lit"}}
	got, err := s.ExpandedEnv(lookup)
	if err != nil || got["A"] != "yes" || got["B"] != "dflt" || got["C"] != "lit" || len(got) != 3 {
		t.Fatalf("ExpandedEnv = %v, %v", got, err)
	}
	if s.Env["A"] != "${SET}" {
		t.Errorf("ExpandedEnv changed the server's env as written: %v", s.Env)
	}

	s.Env["TOKEN"] = "${GH_TOKEN}"
	_, err = s.ExpandedEnv(lookup)
	if err == nil || !strings.HasPrefix(err.Error(), "env TOKEN: ${GH_TOKEN} is not set") {
		t.Fatalf("ExpandedEnv error = %v; want it to name the key and the variable", err)
	}

	if got, err := (Server{}).ExpandedEnv(lookup); err != nil || len(got) != 0 {
		t.Errorf("empty env: %v, %v", got, err)
	}
}
