// Package repotest holds tests of the repository as a whole rather than of one package: that
// every package has a package comment, so that "go doc" introduces it.
package repotest
