/**
 * Child processes that never outlive the JVM that started them ({@link
 * dev.sluice.core.process.ChildProcess}): engines such as {@code vllm serve} run by an
 * {@code openai-process} replica.
 *
 * <p>How: the JVM does not start the command itself but a small {@code /bin/sh} supervisor
 * whose standard input is a pipe from the JVM. The supervisor keeps that pipe on a spare
 * descriptor for a watcher and starts the command, through {@code setsid} when it is available,
 * so the command leads a process group (and session) of its own and the signals reach the
 * processes it starts too (vLLM's workers). The pipe closes when the JVM asks for a stop (it
 * first writes the grace period) or when the JVM dies, however it dies, {@code kill -9}
 * included: the kernel closes its descriptors. Then the watcher sends SIGTERM (or the signal
 * configured) to the group, waits up to the grace period for it to empty, and sends SIGKILL.
 * When the command exits on its own, the supervisor does the same to whatever it left in its
 * group, then exits with the command's exit code.
 *
 * <p>The command's stdout and stderr go line by line to an SLF4J logger with a prefix (the
 * replica id); the last lines are kept for error messages. Its own PID is known (the first line
 * the supervisor's inner shell prints before it execs the command). A note: like every
 * background job of a non-interactive shell, the command starts with SIGINT and SIGQUIT ignored;
 * stopping does not use them (SIGTERM, then SIGKILL, which cannot be ignored).
 */
package dev.sluice.core.process;
