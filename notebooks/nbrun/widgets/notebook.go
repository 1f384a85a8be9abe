package widgets

import (
	"io"
	"os"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// Notebook is a writer for text that must appear in order with the
// pictures of a cell. In a GoNB notebook a program's standard output and
// its displayed pictures reach the notebook by different routes, and text
// printed just before a picture can land after it. Each Write to Notebook
// is sent as one plain-text output by the same route as the pictures, so
// it keeps its place. Outside a notebook it writes to standard output.
var Notebook io.Writer = notebookWriter{}

type notebookWriter struct{}

// Write sends p as one plain-text output of the cell, or writes it to
// standard output outside a notebook.
func (notebookWriter) Write(p []byte) (int, error) {
	if !gonbui.IsNotebook {
		return os.Stdout.Write(p)
	}
	gonbui.SendData(&protocol.DisplayData{Data: map[protocol.MIMEType]any{protocol.MIMETextPlain: string(p)}})
	gonbui.Sync()
	if err := gonbui.Error(); err != nil {
		return 0, err
	}
	return len(p), nil
}
