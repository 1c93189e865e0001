package store

import (
	"testing"

	"github.com/reinsh/rein/internal/nobody"
)

// The store's tests run again as a user other than root, whom file
// permissions stop (CI runs as root).
func TestStoreAsAnotherUser(t *testing.T) { nobody.Rerun(t) }
