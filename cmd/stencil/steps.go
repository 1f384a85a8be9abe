package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"stencillab.dev/lab"
)

func init() {
	commands["steps"] = command{summary: "list the lab's steps and where each runs", run: stepsCmd}
}

func stepsCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "stencil steps: unexpected argument %q\n", args[0])
		return 2
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tFIGURE\tBACKENDS\tTITLE")
	for _, s := range lab.Steps() {
		bs := strings.Join(lab.Backends(s.Name), ",")
		if s.Dim < 3 {
			bs = "library"
		}
		fig := s.Figure
		if fig == "" {
			fig = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, fig, bs, s.Title)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(stderr, "stencil steps: %v\n", err)
		return 1
	}
	return 0
}
