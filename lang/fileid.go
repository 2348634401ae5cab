package lang

// FileID is a file's identity on its system (FileIDOf): a supervisor
// sends its worker those of the caller's files the run's standard streams
// are relayed to (Config.Relayed).
type FileID struct {
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}
