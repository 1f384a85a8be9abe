package grader

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"stencillab.dev/exercises/collect"
	"stencillab.dev/exercises/gradebook"
)

// collectUsage and returnUsage are the usage lines of `grade collect` and
// `grade return`.
const (
	collectUsage = "grade collect -hub HOMES [-handout DIR] | -from FILE.zip [-lms auto|canvas|moodle] | -classroom DIR  -roster FILE -deadline T -out CLASS"
	returnUsage  = "grade return -gradebook DIR (-hub HOMES -roster FILE | -class CLASS -o FEEDBACK.zip)"
)

// parseDeadline reads a deadline: RFC 3339 ("2026-12-01T12:00:00+01:00"),
// or "2006-01-02 15:04" in the local time zone.
func parseDeadline(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02 15:04", s, time.Local); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither RFC 3339 (2026-12-01T12:00:00+01:00) nor 2006-01-02 15:04 (local time)", s)
}

// runCollect is `grade collect`: the hand-ins of the hub's homes, of an
// LMS's download or of a Classroom checkout, into a class folder that
// `grade -class` grades (exercises/collect).
func runCollect(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade collect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		hub       = fs.String("hub", "", "the hub's homes folder (/home): each roster student's ~/"+collect.CopyDir)
		handout   = fs.String("handout", "", "with -hub: the students' copy as handed out; a student who changed only the exercises' notebook is graded on it")
		from      = fs.String("from", "", "an LMS's download: Canvas's \"Download Submissions\" or Moodle's \"Download all submissions\" zip")
		lms       = fs.String("lms", "auto", "with -from: auto, canvas or moodle")
		classroom = fs.String("classroom", "", "a GitHub Classroom checkout: one repository per student, ASSIGNMENT-LOGIN")
		roster    = fs.String("roster", "", "the roster (CSV: id, then name, email, sis_id, login, section)")
		deadline  = fs.String("deadline", "", "the deadline: RFC 3339 or \"2006-01-02 15:04\" (local); with -hub a deadline to come is waited for")
		out       = fs.String("out", "", "the class folder to write (new, or empty)")
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+collectUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	n := 0
	for _, s := range []string{*hub, *from, *classroom} {
		if s != "" {
			n++
		}
	}
	if n != 1 || *roster == "" || *deadline == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	dl, err := parseDeadline(*deadline)
	if err != nil {
		fmt.Fprintf(stderr, "grade collect: -deadline: %v\n", err)
		return 2
	}
	r, err := gradebook.ReadRosterFile(*roster)
	if err != nil {
		fmt.Fprintf(stderr, "grade collect: %v\n", err)
		return 1
	}
	opt := collect.Options{Exercises: catalogue(), Deadline: dl, Out: *out}
	var m *collect.Manifest
	switch {
	case *hub != "":
		if wait := time.Until(dl); wait > 0 {
			fmt.Fprintf(stdout, "grade collect: waiting %s for the deadline, %s\n", wait.Round(time.Second), dl.Format(time.RFC3339))
			time.Sleep(wait)
		}
		m, err = collect.FromHub(*hub, r, collect.HubOptions{Options: opt, Handout: *handout})
	case *from != "":
		f, ferr := os.Open(*from)
		if ferr != nil {
			fmt.Fprintf(stderr, "grade collect: %v\n", ferr)
			return 1
		}
		defer f.Close()
		st, serr := f.Stat()
		if serr != nil || !st.Mode().IsRegular() {
			fmt.Fprintf(stderr, "grade collect: -from %s: not a regular file\n", *from)
			return 1
		}
		switch *lms {
		case "auto":
			m, err = collect.FromZip(f, st.Size(), *from, r, opt)
		case collect.KindCanvas:
			m, err = collect.FromCanvas(f, st.Size(), *from, r, opt)
		case collect.KindMoodle:
			m, err = collect.FromMoodle(f, st.Size(), *from, r, opt)
		default:
			fmt.Fprintf(stderr, "grade collect: -lms %s: not auto, canvas or moodle\n", *lms)
			return 2
		}
	default:
		m, err = collect.FromClassroom(*classroom, r, opt)
	}
	if err != nil {
		fmt.Fprintf(stderr, "grade collect: %v\n", err)
		return 1
	}
	graded := 0
	for _, h := range m.Students {
		if !h.Late {
			graded++
		}
	}
	fmt.Fprintf(stdout, "grade collect: %d hand-ins into %s (%d late, set aside), %d need the instructor, %d of the roster handed in nothing; the list: %s/%s/needs-instructor.md\n",
		graded, *out, len(m.Students)-graded, len(m.NeedsInstructor), len(m.NoHandIn), *out, collect.ManifestDir)
	for _, is := range m.NeedsInstructor {
		fmt.Fprintf(stdout, "  needs the instructor: %s: %s", gradebook.QuoteName(is.Entry), is.Reason)
		if len(is.Candidates) > 0 {
			fmt.Fprintf(stdout, " (could be %s)", strings.Join(is.Candidates, ", "))
		}
		fmt.Fprintln(stdout)
	}
	return 0
}

// runReturn is `grade return`: the gradebook's feedback into the hub's
// homes, or as a zip for the LMS the class was collected from.
func runReturn(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade return", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		book   = fs.String("gradebook", "", "the gradebook folder (grade -class's -out), with feedback/ID.html")
		hub    = fs.String("hub", "", "the hub's homes folder: each student's feedback into ~/"+collect.FeedbackDir)
		roster = fs.String("roster", "", "with -hub: the roster")
		class  = fs.String("class", "", "the class folder `grade collect -from` wrote: its manifest names each submission")
		outZip = fs.String("o", "", "with -class: the zip to upload to the LMS")
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+returnUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *book == "" || fs.NArg() > 0 || (*hub == "") == (*class == "") || (*hub != "" && *roster == "") || (*class != "" && *outZip == "") {
		fs.Usage()
		return 2
	}
	if *hub != "" {
		r, err := gradebook.ReadRosterFile(*roster)
		if err != nil {
			fmt.Fprintf(stderr, "grade return: %v\n", err)
			return 1
		}
		done, err := collect.ReturnToHomes(*book, *hub, r)
		fmt.Fprintf(stdout, "grade return: feedback written into %d homes (~/%s)\n", len(done), collect.FeedbackDir)
		if err != nil {
			fmt.Fprintf(stderr, "grade return: %v\n", err)
			return 1
		}
		return 0
	}
	m, err := collect.ReadManifest(*class)
	if err != nil {
		fmt.Fprintf(stderr, "grade return: %v\n", err)
		return 1
	}
	f, err := os.OpenFile(*outZip, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		fmt.Fprintf(stderr, "grade return: %v\n", err)
		return 1
	}
	n, err := collect.FeedbackZip(*book, m, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(*outZip)
		fmt.Fprintf(stderr, "grade return: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "grade return: %d feedback files in %s, for %s's feedback upload\n", n, *outZip, m.Kind)
	return 0
}

// runCollectOrReturn runs `grade collect` or `grade return`, args[0].
func runCollectOrReturn(args []string, stdout, stderr io.Writer) int {
	if args[0] == "return" {
		return runReturn(args[1:], stdout, stderr)
	}
	return runCollect(args[1:], stdout, stderr)
}
