package proc

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysGroup is the Job object that holds the child and everything it starts;
// zero when none could be made (then only the child itself is killed).
type sysGroup struct {
	job windows.Handle
}

// start starts the child suspended, puts it in a Job object that kills all
// its processes when its last handle closes (ours is not inherited, so that
// is when agentls exits or dies), and only then lets it run: nothing it
// starts can escape the job. Windows has no guard process; the job is it.
func (g *Group) start(Options) error {
	cmd := g.cmd
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Its own console process group: a Ctrl-C at our console is not
		// delivered to it first, as with a Unix process group.
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP,
	}
	job, jobErr := newKillOnCloseJob()
	if err := cmd.Start(); err != nil {
		if jobErr == nil {
			windows.CloseHandle(job)
		}
		return err
	}
	pid := uint32(cmd.Process.Pid)
	if jobErr == nil {
		if jobErr = assignToJob(job, pid); jobErr != nil {
			windows.CloseHandle(job)
		}
	}
	if jobErr == nil {
		g.sys.job, g.guarded = job, true
	}
	if err := resumeProcess(pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		g.release()
		return fmt.Errorf("resume %s: %w", cmd.Path, err)
	}
	return nil
}

func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

func assignToJob(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(job, h)
}

// resumeProcess resumes the threads of a process started suspended (it has
// one: its main thread).
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of process %d found", pid)
	}
	return nil
}

// terminate does nothing: Windows has no SIGTERM. Stop's grace period is
// the child's chance to end by itself (an MCP server's stdin was closed).
func (g *Group) terminate() {}

func (g *Group) kill() {
	if g.sys.job != 0 {
		windows.TerminateJobObject(g.sys.job, 1)
		return
	}
	g.cmd.Process.Kill()
}

func (g *Group) release() {
	if g.sys.job != 0 {
		windows.CloseHandle(g.sys.job)
		g.sys.job = 0
	}
}

// runGuard: Windows starts no guard process; the Job object is the guard
// (see start).
func runGuard() int { return 0 }
