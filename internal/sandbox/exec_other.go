//go:build !linux

package sandbox

import "errors"

func confineAndExec(Policy, string, []string) error {
	return errors.New("this system has no Landlock")
}
