package grading

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A notebook's grade cell must grade the code its exercise's code cell
// defines now. GoNB, the notebooks' Go kernel, keeps the declarations of
// the last run of a cell that compiled: after a compile error it goes on
// with the previous definitions, and a grade cell would grade those. So
// each generated code cell ends with
//
//	%%
//	%capture $GONB_TMP_DIR/stencillab-ID.cell
//	grading.CellCompiled("ID")
//
// GoNB runs the %capture command first, whatever the Go code: it empties
// the file and copies into it what the cell's program prints. The program
// runs only when the cell compiled, and then CellCompiled prints the mark.
// The grade cell (Print, and cudacheck.RunLocal) reads the file: a file
// without the mark means that the code cell's last run did not compile,
// and nothing is graded. GoNB ignores the lines from %% on when the cell
// is handed in as a file (handin.CellFile), and a kernel restart starts a
// fresh $GONB_TMP_DIR, with no file and no definitions.

// envGoNBTmp is the folder where GoNB compiles a notebook's cells; set in
// every cell's program, it changes only when the kernel restarts.
const envGoNBTmp = "GONB_TMP_DIR"

// cellFile is the name of the file that the code cell of exercise id
// captures its output into, in $GONB_TMP_DIR.
func cellFile(id string) string { return "stencillab-" + id + ".cell" }

// CellCapture returns the %capture line of the code cell of exercise id,
// the one that CellCompiled and CellError expect.
func CellCapture(id string) string { return "%capture $" + envGoNBTmp + "/" + cellFile(id) }

// cellMark is what CellCompiled prints for exercise id.
func cellMark(id string) string {
	return fmt.Sprintf("%s: the cell compiled; the cell below grades it.", id)
}

// plainID reports whether id is an exercise's folder name: letters, digits
// and underscores only, so that it names a file in $GONB_TMP_DIR and
// nothing else.
func plainID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// CellCompiled is called by the code cell of exercise id, after GoNB's %%:
// it runs only when the cell compiled, and prints the mark that the grade
// cell looks for in the cell's captured output.
func CellCompiled(id string) {
	fmt.Println(cellMark(id))
}

// maxCellFile bounds what CellError reads of a captured output.
const maxCellFile = 1 << 20

// CellError returns why a notebook's grade cell must grade nothing for
// exercise id: the code cell's last run, in this kernel, did not compile
// (or did not reach its last line). It returns nil outside GoNB, and when
// the code cell did not capture its output (a notebook without the mark,
// or no run of the code cell since the kernel started: then the grade cell
// does not compile either).
func CellError(id string) error {
	dir := os.Getenv(envGoNBTmp)
	if dir == "" || !plainID(id) {
		return nil
	}
	f, err := os.Open(filepath.Join(dir, cellFile(id)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var b []byte
	if err == nil {
		b, _ = io.ReadAll(io.LimitReader(f, maxCellFile))
		f.Close()
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == cellMark(id) {
			return nil
		}
	}
	return fmt.Errorf("%s: NOT GRADED: the exercise's code cell did not compile when it last ran (its error is under it), "+
		"or it stopped before its last line. The kernel still holds the code of the last run that compiled, and grading "+
		"now would grade that, not the cell as it stands. Fix the code cell and run it, then run this cell again. "+
		"(The lines from %%%% on at the end of the code cell tell this cell that it compiled: keep them.)", id)
}
