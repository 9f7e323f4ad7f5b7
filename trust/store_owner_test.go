package trust

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestStoreOwnedByAnotherUserTrustsNothing: in a state directory others
// can write (a shared or misconfigured XDG_STATE_HOME) another user can
// swap in a trust.json of their own, mode 0644, approving their servers
// for us. Mode alone does not catch that; the owner does.
func TestStoreOwnedByAnotherUserTrustsNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file owners are unix uids here")
	}
	store := testStore(t)
	fp := strings.Repeat("a", 64)
	if err := store.ApproveLaunch("/repo", "x", fp); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(store.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := store.LaunchState("/repo", "x", fp); err != nil || st != Trusted {
		t.Fatalf("own file: %s, %v; want trusted", st, err)
	}
	defer func(uid int) { currentUID = uid }(currentUID)
	currentUID++
	st, err := store.LaunchState("/repo", "x", fp)
	if st != NeedsApproval || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "owned by") {
		t.Fatalf("file of another user: %s, %v; want needs_approval and a corrupt-store error saying who owns it", st, err)
	}
}
