/* A CheckerBoard engine for cubesearch's tests that never answers a move: getmove ignores
 * playnow and sleeps until the process ends, as a hung engine would. On entering getmove it
 * writes "searching" to the file named by CB_STUCK_FILE, so that a test knows the call began.
 * Build: cc -shared -fPIC -o libstuck.so stuck.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int enginecommand(char command[256], char reply[1024]) {
    const char *answer = "?";
    if (strcmp(command, "get protocolversion") == 0)
        answer = "2";
    else if (strcmp(command, "get gametype") == 0)
        answer = "21";
    else if (strcmp(command, "name") == 0)
        answer = "stuck";
    snprintf(reply, 1024, "%s", answer);
    return strcmp(answer, "?") != 0;
}

int islegal(int board[8][8], int color, int from, int to, void *move) { return 0; }

int getmove(int board[8][8], int color, double maxtime, char str[1024], int *playnow, int info,
            int moreinfo, void *move) {
    const char *path = getenv("CB_STUCK_FILE");
    FILE *file = path ? fopen(path, "w") : NULL;
    if (file) {
        fputs("searching\n", file);
        fclose(file);
    }
    for (;;)
        sleep(1);
}
