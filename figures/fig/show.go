package fig

import (
	"fmt"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot/vg"
)

// Show renders d as a w×h PNG at ShowDPI and displays it in the GoNB
// notebook that runs the code, waiting until the notebook has it so that
// text printed afterwards appears below the picture. Outside a notebook it
// renders and returns without displaying, so notebook code also runs as a
// plain program.
func Show(d Drawer, w, h vg.Length) error {
	return ShowAt(d, w, h, ShowDPI)
}

// ShowAt is Show at dpi dots per inch.
func ShowAt(d Drawer, w, h vg.Length, dpi int) error {
	png, err := PNG(d, w, h, dpi)
	if err != nil {
		return fmt.Errorf("fig: show: %w", err)
	}
	gonbui.DisplayPng(png)
	gonbui.Sync()
	if err := gonbui.Error(); err != nil {
		return fmt.Errorf("fig: show: notebook display: %w", err)
	}
	return nil
}

// ShowSVG renders d as a w×h SVG and displays it in the notebook with the
// MIME type image/svg+xml. The SVG names the Liberation fonts rather than
// embedding them; a browser without them substitutes similar ones.
func ShowSVG(d Drawer, w, h vg.Length) error {
	svg, err := SVG(d, w, h)
	if err != nil {
		return fmt.Errorf("fig: show SVG: %w", err)
	}
	if !gonbui.IsNotebook {
		return nil
	}
	gonbui.SendData(&protocol.DisplayData{
		Data: map[protocol.MIMEType]any{protocol.MIMEImageSVG: string(svg)},
	})
	gonbui.Sync()
	if err := gonbui.Error(); err != nil {
		return fmt.Errorf("fig: show SVG: notebook display: %w", err)
	}
	return nil
}

// ShowUpdate renders d as a w×h PNG at ShowDPI and displays it in the
// output named id, replacing what that output showed before: the first
// call with an id adds the output, later ones redraw it, so that a cell
// can animate. The picture is image/png, which a saved notebook keeps and
// GitHub's notebook view shows (a picture inside HTML it does not). Outside
// a notebook it renders and returns.
func ShowUpdate(id string, d Drawer, w, h vg.Length) error {
	png, err := PNG(d, w, h, ShowDPI)
	if err != nil {
		return fmt.Errorf("fig: show update: %w", err)
	}
	if !gonbui.IsNotebook {
		return nil
	}
	gonbui.SendData(&protocol.DisplayData{
		Data:      map[protocol.MIMEType]any{protocol.MIMEImagePNG: png},
		DisplayID: id,
	})
	gonbui.Sync()
	if err := gonbui.Error(); err != nil {
		return fmt.Errorf("fig: show update: notebook display: %w", err)
	}
	return nil
}
