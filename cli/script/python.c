/* SPDX-License-Identifier: MIT */
/*
 * perf's scripting interface for `perfring script`: -s FILE.py, -g python,
 * -l, report NAME and record NAME.  The work is python/perfring/
 * perfscript.py's, run as a child python3: for -s and -g it reads the
 * samples as JSON Lines (the --json keys plus "misc", "addr" and "raw",
 * PFR_OUT_JSON_PY) from a pipe whose descriptor PERFRING_FEED_FD names,
 * and calls the script's handlers as perf does.  See docs/script.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../cli.h"
#include "script.h"

/* PYTHONPATH with the tree's python/ first when this perfring runs from
 * a build tree (build/perfring, the runner at ../python/perfring/), and
 * PERFRING this program's path, for report and record's wrappers. */
static void cli_py_env(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 64], *slash, *env;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return;
	exe[n] = 0;
	if (!getenv("PERFRING"))
		setenv("PERFRING", exe, 1);
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = 0;
	snprintf(dir, sizeof(dir), "%s/../python/perfring/perfscript.py", exe);
	if (access(dir, R_OK))
		return;
	snprintf(dir, sizeof(dir), "%s/../python", exe);
	env = getenv("PYTHONPATH");
	if (env && *env) {
		char *both = malloc(strlen(dir) + strlen(env) + 2);

		if (!both)
			return;
		sprintf(both, "%s:%s", dir, env);
		setenv("PYTHONPATH", both, 1);
		free(both);
	} else {
		setenv("PYTHONPATH", dir, 1);
	}
}

/* Replaces this process (or the child) with the runner: python3 -m
 * perfring.perfscript MODE WHAT FILE -- ARGS..., python3 being
 * $PERFRING_PYTHON when set (perf runs the system's libpython). */
static void cli_py_run(struct cli_script *S)
{
	char mode[3] = {'-', (char)S->py_mode, 0};
	const char **av = calloc((size_t)S->npy_args + 10, sizeof(*av));
	const char *py = getenv("PERFRING_PYTHON");
	int k = 0;

	if (!av)
		_exit(127);
	cli_py_env();
	if (!py || !*py)
		py = "python3";
	av[k++] = py;
	av[k++] = "-m";
	av[k++] = "perfring.perfscript";
	av[k++] = mode;
	av[k++] = S->py_what ? S->py_what : "";
	av[k++] = S->in;
	av[k++] = "--";
	for (int i = 0; i < S->npy_args; i++)
		av[k++] = S->py_args[i];
	execvp(py, (char *const *)av);
	fprintf(stderr, "perfring script: %s: %s\n", py, strerror(errno));
	_exit(127);
}

int cli_script_py_exec(struct cli_script *S)
{
	fflush(stdout);
	cli_py_run(S);
	return 127;
}

int cli_script_py_start(struct cli_script *S)
{
	int fd[2];
	char num[16];
	pid_t pid;

	if (pipe(fd)) {
		fprintf(stderr, "perfring script: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "perfring script: fork: %s\n", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (!pid) {
		close(fd[1]);
		snprintf(num, sizeof(num), "%d", fd[0]);
		setenv("PERFRING_FEED_FD", num, 1);
		cli_py_run(S);
	}
	close(fd[0]);
	/* fewer switches between the two: a larger pipe, where allowed */
	(void)fcntl(fd[1], F_SETPIPE_SZ, 1 << 20);
	/* a runner that ends early closes the pipe: writes then fail with
	 * EPIPE, not the signal */
	signal(SIGPIPE, SIG_IGN);
	S->py_feed = fdopen(fd[1], "w");
	S->py_pid = (int)pid;
	if (!S->py_feed) {
		close(fd[1]);
		return -1;
	}
	setvbuf(S->py_feed, NULL, _IOFBF, 1 << 16);
	return 0;
}

int cli_script_py_finish(struct cli_script *S)
{
	int st = 0;

	if (S->py_feed)
		fclose(S->py_feed);
	S->py_feed = NULL;
	if (S->py_pid <= 0)
		return 1;
	while (waitpid(S->py_pid, &st, 0) < 0 && errno == EINTR)
		;
	S->py_pid = 0;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}
