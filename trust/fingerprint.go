package trust

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
)

// fingerprintDomain separates launch fingerprints from every other SHA-256
// this program computes, and versions the encoding.
const fingerprintDomain = "agentls launch fingerprint v1"

// Fingerprint is the hex SHA-256 of a canonical structural encoding of what
// would run: command, args, env (sorted [key, value] pairs) and cwd.
//
// Trust is keyed on this value, not on the server's name: a repo that got
// consent for a harmless command must not keep it after swapping in
// `sh -c 'curl … | sh'` (or adding NODE_OPTIONS=--require …) under the same
// name. SHA-256 because the attacker knows the trusted value and controls the
// replacement, so a second preimage is the attack.
func Fingerprint(command string, args []string, env map[string]string, cwd string) string {
	sum := sha256.Sum256(encodeLaunch(command, args, env, cwd))
	return hex.EncodeToString(sum[:])
}

// ServerFingerprint is Fingerprint over a configured server, env as written
// (${VAR} unexpanded): what the repo declared, which is what the card shows.
// An entry that writes sandbox or network also hashes both (after the
// launch fields), so a repository that loosens its server's confinement
// (sandbox = "none", network = true) asks again; an entry that writes
// neither keeps the fingerprint it had before these keys existed. A
// repository's or editor's server the kernel cannot confine here hashes
// that too, so an approval given where it was confined does not cover it.
// A remote server's is RemoteFingerprint.
func ServerFingerprint(s config.Server) string {
	if s.Remote() {
		fp := RemoteFingerprint(s.URL, s.Headers)
		if s.OAuthClientID != "" || s.OAuthClientSecretEnv != "" {
			// The client secret is read from the environment and sent to
			// the authorization server: changing which variable asks again.
			b := appendString(nil, remoteDomain+" oauth")
			b = appendString(b, fp)
			b = appendString(b, s.OAuthClientID)
			b = appendString(b, s.OAuthClientSecretEnv)
			sum := sha256.Sum256(b)
			fp = hex.EncodeToString(sum[:])
		}
		return fp
	}
	b := encodeLaunch(s.Command, s.Args, s.Env, s.Cwd)
	if s.Sandbox != "" || s.Network {
		b = appendString(b, "sandbox")
		b = appendString(b, s.Sandbox)
		net := "network=false"
		if s.Network {
			net = "network=true"
		}
		b = appendString(b, net)
	}
	if s.Origin != config.User && s.SandboxMode() != config.SandboxNone && !sandbox.Supported().Filesystem {
		// A repository's or an editor's server that the kernel cannot
		// confine here runs with the user's full access. Approved where
		// its card said the kernel confines it, it asks again (a kernel
		// or a container without Landlock) with a card that says so.
		b = appendString(b, "unconfined")
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// remoteDomain separates remote-server fingerprints from launch ones.
const remoteDomain = "agentls remote fingerprint v1"

// RemoteFingerprint is the hex SHA-256 of what a remote server is sent: its
// URL, the header names and, per header, the environment variables its
// value reads (${VAR}). Not the values: a literal value may be a secret and
// the trust store must not hold it. The variables are covered because they
// are what leaves the machine: a repo approved to send ${LINEAR_TOKEN} to a
// host must ask again before it sends ${GITHUB_TOKEN} there.
func RemoteFingerprint(rawURL string, headers map[string]string) string {
	b := appendString(nil, remoteDomain)
	b = appendString(b, rawURL)
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	sort.Strings(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, k := range names {
		b = appendString(b, k)
		vars := envReferences(map[string]string{k: headers[k]})
		b = binary.AppendUvarint(b, uint64(len(vars)))
		for _, v := range vars {
			b = appendString(b, v)
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// encodeLaunch is the canonical encoding: every string is length-prefixed and
// every list is count-prefixed, so field boundaries are never guessed from the
// content. Joining env as "k=v" would let {"a": "b=c"} and {"a=b": "c"}
// collide for free; a space-joined command line would let ["a b"] and
// ["a", "b"] collide. Env is sorted by key, so map order never matters.
// nil and empty lists encode alike: they run the same thing.
func encodeLaunch(command string, args []string, env map[string]string, cwd string) []byte {
	n := len(fingerprintDomain) + len(command) + len(cwd) + 4*binary.MaxVarintLen64
	for _, a := range args {
		n += len(a) + binary.MaxVarintLen64
	}
	for k, v := range env {
		n += len(k) + len(v) + 2*binary.MaxVarintLen64
	}
	b := make([]byte, 0, n)
	b = appendString(b, fingerprintDomain)
	b = appendString(b, command)
	b = binary.AppendUvarint(b, uint64(len(args)))
	for _, a := range args {
		b = appendString(b, a)
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = appendString(b, k)
		b = appendString(b, env[k])
	}
	b = appendString(b, cwd)
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
