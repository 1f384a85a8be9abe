// Command hub serves the lab to a class from one machine: a JupyterHub
// (Debian's jupyterhub and configurable-http-proxy) with one Linux account
// per roster row, the students' copy in each home and the GoNB kernel for
// every user. Package internal/hub says how.
//
// Usage (as root; scripts/hub.sh installs the packages and runs setup and
// start, as `make hub ROSTER=roster.csv` does):
//
//	hub setup -roster FILE [-state DIR] [-shared DIR] [-homes DIR] [-ip IP] [-port N]
//	          [-mem SIZE] [-cpus F] [-procs N]
//	hub start [-state DIR] [-foreground]
//	hub stop [-state DIR] [-keep-servers]
//	hub restart [-state DIR]
//	hub remove -roster FILE [-state DIR] [-homes DIR]
package main

import (
	"os"

	"stencillab.dev/internal/hub"
)

func main() { os.Exit(hub.Main(os.Args[1:], os.Stdout, os.Stderr)) }
