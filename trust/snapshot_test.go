package trust

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/config"
)

func TestSnapshotDecidesAsThePolicyDidAtTheRead(t *testing.T) {
	store := testStore(t)
	if err := store.AllowAlways("fs__write", "def1"); err != nil {
		t.Fatal(err)
	}
	pol := &Policy{Store: store, Rules: []config.PolicyRule{
		{Pattern: "fs__read", Action: "allow", Origin: config.User},
		{Pattern: "fs__rm", Action: "deny", Origin: config.User},
	}}
	tools := []ToolInfo{
		{Name: "fs__write", Server: "fs", DefinitionHash: "def1"},
		{Name: "fs__write", Server: "fs", DefinitionHash: "def2"}, // the rug pull still asks
		{Name: "fs__read", Server: "fs"},
		{Name: "fs__rm", Server: "fs"},
		{Name: "fs__other", Server: "fs"},
	}
	snap := pol.Snapshot()
	for _, tool := range tools {
		if got, want := snap.ClassifyCall(tool), pol.ClassifyCall(tool); got != want {
			t.Errorf("%s (%s): snapshot %+v, policy %+v", tool.Name, tool.DefinitionHash, got, want)
		}
	}
	if err := snap.Store.AllowAlways("fs__other", "x"); err == nil {
		t.Error("a snapshot's store accepted a write")
	}
	if err := store.ForgetAlways("fs__write"); err != nil {
		t.Fatal(err)
	}
	if d := snap.ClassifyCall(tools[0]); d.Action != Allow {
		t.Errorf("snapshot after a later revocation = %+v, want the decision at its read (allow)", d)
	}
	if d := pol.ClassifyCall(tools[0]); d.Action != Ask {
		t.Errorf("policy after the revocation = %+v, want ask", d)
	}
}

func TestSnapshotOfACorruptStoreTrustsNothing(t *testing.T) {
	store := testStore(t)
	if err := os.MkdirAll(filepath.Dir(store.Path()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store.Path(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	pol := &Policy{Store: store}
	tool := ToolInfo{Name: "fs__write", Server: "fs", DefinitionHash: "def1"}
	got, want := pol.Snapshot().ClassifyCall(tool), pol.ClassifyCall(tool)
	if got != want || got.Action != Ask {
		t.Errorf("snapshot %+v, policy %+v; want the same ask with the store's error", got, want)
	}
}

func TestSnapshotOfNoStoreIsThePolicy(t *testing.T) {
	pol := &Policy{}
	if pol.Snapshot() != pol {
		t.Error("a policy without a store should snapshot to itself")
	}
	var nilPol *Policy
	if nilPol.Snapshot() != nil {
		t.Error("nil policy should snapshot to nil")
	}
}
