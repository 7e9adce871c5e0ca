/*
 * The operating system's floor under any stdio proxy: spawns the server
 * command and copies bytes both ways with poll(2), read(2) and write(2),
 * nothing else. relay_floor.ts compiles it with the system's cc and times
 * it beside gate_relay.ts, the same relay in Deno.
 *
 *   cc -O2 -o native_relay native_relay.c && ./native_relay <server command...>
 */
#include <poll.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_all(int fd, const char *buf, ssize_t n) {
  for (ssize_t done = 0; done < n;) {
    ssize_t w = write(fd, buf + done, (size_t)(n - done));
    if (w < 0) return -1;
    done += w;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "Usage: native_relay <server command...>\n");
    return 2;
  }
  int to_server[2], from_server[2];
  if (pipe(to_server) < 0 || pipe(from_server) < 0) return 1;
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    dup2(to_server[0], 0);
    dup2(from_server[1], 1);
    close(to_server[1]);
    close(from_server[0]);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  close(to_server[0]);
  close(from_server[1]);
  struct pollfd fds[2] = {{0, POLLIN, 0}, {from_server[0], POLLIN, 0}};
  static char buf[1 << 16];
  for (;;) {
    if (poll(fds, 2, -1) < 0) break;
    if (fds[0].fd >= 0 && (fds[0].revents & (POLLIN | POLLHUP))) {
      ssize_t n = read(0, buf, sizeof buf);
      if (n <= 0) {
        /* Host EOF: the server sees its stdin close and ends. */
        close(to_server[1]);
        fds[0].fd = -1;
      } else if (write_all(to_server[1], buf, n) < 0) {
        break;
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      ssize_t n = read(from_server[0], buf, sizeof buf);
      if (n <= 0 || write_all(1, buf, n) < 0) break;
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
