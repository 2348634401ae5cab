// Package program is what every layer knows of a program without running
// it: the most bytes a program file may have (MaxBytes), how its bytes are
// read within that bound (Read) and beneath an import root (ReadBeneath),
// the record a run keeps of each file it compiles (FileDigest), and
// whether this build holds programs to their budgets at all (Knockout).
// It imports nothing of Sabline's but the bounded reader: the language,
// the run, the receipt and the doors all read it, and none of them needs
// another for it.
package program

// MaxBytes is the largest program file read: the program a run is given
// and each file it loads.
const MaxBytes = 16 << 20

// MaxFiles and MaxPathBytes bound the files of one program: the program
// and every file it loads, and their paths in all. A run's receipt names
// each with its digest, as its worker reports them within a bound of its
// own: a load past these is refused (E306) before the first statement,
// where a program of 4,097 files ran and then ended as a crash of its
// worker (E310).
const (
	MaxFiles     = 1024
	MaxPathBytes = 128 << 10
)

// FileDigest names a source file and the sha256 of its bytes.
type FileDigest struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}
