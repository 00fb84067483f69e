// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: two processes pass one byte back and forth over two pipes, the
 * wakeup-heavy pattern that scheduler changes on the wakeup and switch paths
 * show up in (make bench-push).
 *
 *   pingpong [ROUNDS]     default 20000 round trips
 *
 * Prints "Time: SECONDS" (CLOCK_MONOTONIC, from the first write to the last
 * read), the line hackbench prints, so one parser reads both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void xfer(int rfd, int wfd, long rounds, int first)
{
	char c = 0;
	long i;

	for (i = 0; i < rounds; i++) {
		if (first && write(wfd, &c, 1) != 1)
			die("pingpong: write");
		if (read(rfd, &c, 1) != 1)
			die("pingpong: read");
		if (!first && write(wfd, &c, 1) != 1)
			die("pingpong: write");
	}
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	int ping[2], pong[2], status;
	struct timespec t0, t1;
	pid_t child;

	if (rounds <= 0) {
		fprintf(stderr, "usage: pingpong [ROUNDS > 0]\n");
		return 2;
	}
	if (pipe(ping) || pipe(pong))
		die("pingpong: pipe");
	child = fork();
	if (child < 0)
		die("pingpong: fork");
	if (!child) {
		xfer(ping[0], pong[1], rounds, 0);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	xfer(pong[0], ping[1], rounds, 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		die("pingpong: child");
	printf("Time: %.6f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
