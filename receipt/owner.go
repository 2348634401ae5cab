package receipt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
)

// Who a receipt is taken from. The owner of a directory may remove,
// rename and write in it whatever its mode, and the owner of a file may
// write it: a receipts directory, its journal directories and its receipt
// files are trusted only when this user or root owns them (the rule of the
// register and the token file, guard.OwnedByAnother). A directory another
// user owns (made first at the shared place --receipts names, say) is
// refused by the writers (OpenStore, Reserve, Write) and the readers
// (Scan, FindRun) alike, E317; a file or journal directory another user
// made in a directory of ours that others may write in is passed over and
// named, never read as a receipt.

// errAnotherOwner is wrapped by the error of a receipt file, or a
// journal directory, that a user who is neither this one nor root owns.
var errAnotherOwner = errors.New("owned by another user")

// anotherOwnerDo is what to do about a receipts directory another user
// owns.
const anotherOwnerDo = "Name a receipts directory (--receipts, SABLINE_RECEIPTS) that you or " +
	"root own, with no journal directory in it that another user made, or one that does not " +
	"exist yet (Sabline makes it, mode 0700). To read another user's receipts, read them as " +
	"that user."

// checkDirOwner is nil when the receipts directory dir, where it leads,
// is owned by this user or root; else E317, naming its owner. A
// directory that does not exist is nil: it holds no receipts.
func checkDirOwner(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return codes.Errorf(codes.E317, "receipts directory %s: %w", dir, err)
	}
	if uid, another := guard.OwnedByAnother(fi); another {
		e := codes.Errorf(codes.E317, "receipts directory %s is owned by uid %d, neither you (uid %d) "+
			"nor root: its owner can remove, replace and plant the receipts in it", dir, uid,
			os.Geteuid())
		e.Do = anotherOwnerDo
		return e
	}
	return nil
}

// anotherOwner is nil when fi, a receipt file or a journal directory, is
// owned by this user or root; else an error wrapping errAnotherOwner that
// names its owner.
func anotherOwner(fi fs.FileInfo) error {
	if uid, another := guard.OwnedByAnother(fi); another {
		return fmt.Errorf("it is owned by uid %d, neither you (uid %d) nor root: what it holds "+
			"is theirs to choose (%w)", uid, os.Geteuid(), errAnotherOwner)
	}
	return nil
}

// DirAdvice is what to do about the receipts directory dir, "" when
// nothing: one another user owns is refused (checkDirOwner's message); one
// others may write in without the sticky bit (an emptyDir, mode 0777) is
// used, but they may remove or rename its receipts (one they plant is
// passed over). For sabline doctor.
func DirAdvice(dir string) string {
	if err := checkDirOwner(dir); err != nil {
		var e *codes.Error
		if errors.As(err, &e) {
			return e.Msg + ": " + e.Do
		}
		return err.Error()
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return ""
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Sprintf("receipts directory %s has mode %s: other users may remove or rename "+
			"its receipts (one they write there is passed over, never read as yours): chmod 700 "+
			"it, or at least +t", dir, fi.Mode().Perm())
	}
	return ""
}
