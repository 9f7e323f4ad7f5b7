package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"

	"github.com/agentls/agentls/mcp/toolname"
)

// ToolKey identifies one tool of one configured server: the server's config
// name and the tool's own name, exactly as the server spelled it.
type ToolKey struct {
	Server string
	Tool   string
}

// NamespaceTool is the name the model sees for a server's tool when nothing
// collides, legal by [toolname.Valid]: "server__tool", with every character outside [a-zA-Z0-9_-]
// replaced by "_", a leading digit or dash fixed with a leading "_", and cut
// to toolname.MaxLen. When the name had to be changed or cut, a short hash of
// the original (server, tool) pair is appended, so two different originals
// never meet by sanitizing alike. Pure and deterministic.
func NamespaceTool(server, tool string) string {
	raw := server + "__" + tool
	s, changed := sanitizeName(raw)
	if !changed && len(s) <= toolname.MaxLen {
		return s
	}
	return withHash(s, nameHash(server, tool, 6))
}

// AssignNames gives every (server, tool) pair a distinct legal name that is
// none of reserved (the built-in tools). Each pair gets NamespaceTool's name
// unless that is taken, in which case a hash of the original is appended the
// same way (longer, then numbered, in the astronomically unlikely case that
// is taken too); nothing is ever dropped. The result depends only on the set
// of keys and reserved names, never on their order, so it is the same across
// restarts. The map is injective: invert it to route a call back exactly.
func AssignNames(keys []ToolKey, reserved []string) map[ToolKey]string {
	sorted := append([]ToolKey(nil), keys...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Server != sorted[j].Server {
			return sorted[i].Server < sorted[j].Server
		}
		return sorted[i].Tool < sorted[j].Tool
	})
	taken := make(map[string]bool, len(keys)+len(reserved))
	for _, r := range reserved {
		taken[r] = true
	}
	out := make(map[ToolKey]string, len(sorted))
	for _, k := range sorted {
		if _, dup := out[k]; dup {
			continue
		}
		name := NamespaceTool(k.Server, k.Tool)
		if taken[name] {
			name = collisionName(k, name, taken)
		}
		taken[name] = true
		out[k] = name
	}
	return out
}

// collisionName renames a tool whose natural name is already taken.
func collisionName(k ToolKey, base string, taken map[string]bool) string {
	if name := withHash(base, nameHash(k.Server, k.Tool, 6)); !taken[name] {
		return name
	}
	h := nameHash(k.Server, k.Tool, 12)
	if name := withHash(base, h); !taken[name] {
		return name
	}
	for i := 2; ; i++ {
		if name := withHash(base, h+"_"+strconv.Itoa(i)); !taken[name] {
			return name
		}
	}
}

// sanitizeName maps every character outside [a-zA-Z0-9_-] to "_" (one per
// rune, so multi-byte characters do not multiply) and makes the first
// character a letter or "_". changed reports whether anything was altered.
func sanitizeName(raw string) (s string, changed bool) {
	b := make([]byte, 0, len(raw)+1)
	for _, r := range raw {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b = append(b, byte(r))
		default:
			b = append(b, '_')
			changed = true
		}
	}
	if len(b) == 0 || (b[0] >= '0' && b[0] <= '9') || b[0] == '-' {
		b = append([]byte{'_'}, b...)
		changed = true
	}
	return string(b), changed
}

// withHash cuts s so that "_" + h fits within toolname.MaxLen and appends it.
func withHash(s, h string) string {
	keep := toolname.MaxLen - len(h) - 1
	if len(s) > keep {
		s = s[:keep]
	}
	return s + "_" + h
}

// nameHash is n hex digits of SHA-256 over the unambiguous encoding of the
// original pair (a NUL cannot occur in a TOML key or be confused with "__").
// It only keeps names apart; it is not a security boundary.
func nameHash(server, tool string, n int) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(sum[:])[:n]
}
