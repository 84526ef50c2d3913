/* A CheckerBoard engine for cubesearch's tests. It asks a real engine library (the path in
 * CB_RELAY_ENGINE) for each move, then reports that move back the way engines in the wild do,
 * in one channel only. CB_RELAY_MODE says how:
 *
 *   cbmove    CBmove only, the board left as it was given (Cake 1.22's Linux build), with
 *             Cake's other habits: the captured squares in another order, and path[] holding
 *             `to` again and again;
 *   board     the board only, CBmove left as it was given;
 *   disagree  the board after the engine's move, and the CBmove of another legal move;
 *   neither   nothing: the board and CBmove as they were given.
 *
 * Like Cake, it prints its search to stdout (through C's buffered stdio), which a host must
 * keep out of its own output.
 * Build: cc -shared -fPIC -o librelay.so relay.c -ldl */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct coor {
    int x, y;
};

struct CBmove {
    int jumps, newpiece, oldpiece;
    struct coor from, to;
    struct coor path[12], del[12];
    int delpiece[12];
};

typedef int (*getmove_fn)(int[8][8], int, double, char *, int *, int, int, struct CBmove *);
typedef int (*command_fn)(char *, char *);
typedef int (*islegal_fn)(int[8][8], int, int, int, struct CBmove *);

static void *inner(const char *symbol) {
    static void *library;
    const char *path = getenv("CB_RELAY_ENGINE");
    if (!library && path)
        library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    return library ? dlsym(library, symbol) : NULL;
}

static const char *mode(void) {
    const char *m = getenv("CB_RELAY_MODE");
    return m ? m : "";
}

int enginecommand(char command[256], char reply[1024]) {
    command_fn ask = (command_fn)inner("enginecommand");
    if (strcmp(command, "name") == 0) {
        snprintf(reply, 1024, "relay %s", mode());
        return 1;
    }
    if (!ask) {
        snprintf(reply, 1024, "?");
        return 0;
    }
    return ask(command, reply);
}

int islegal(int board[8][8], int color, int from, int to, struct CBmove *move) {
    islegal_fn legal = (islegal_fn)inner("islegal");
    return legal ? legal(board, color, from, to, move) : 0;
}

static int same(struct coor a, struct coor b) { return a.x == b.x && a.y == b.y; }

int getmove(int board[8][8], int color, double maxtime, char str[1024], int *playnow, int info,
            int moreinfo, struct CBmove *move) {
    getmove_fn get = (getmove_fn)inner("getmove");
    islegal_fn legal = (islegal_fn)inner("islegal");
    int given[8][8], verdict, from, to, i, n;
    struct CBmove chosen, other;
    if (!get || !legal) {
        snprintf(str, 1024, "relay: cannot load CB_RELAY_ENGINE");
        return 3;
    }
    memcpy(given, board, sizeof given);
    memset(&chosen, 0, sizeof chosen);
    verdict = get(board, color, maxtime, str, playnow, info, moreinfo, &chosen);
    printf("relay: searched, %s\n", str);
    if (strcmp(mode(), "cbmove") == 0) {
        memcpy(board, given, sizeof given);
        *move = chosen;
        n = chosen.jumps;
        for (i = 0; i < n; i++) {
            move->del[i] = chosen.del[n - 1 - i];
            move->delpiece[i] = color; /* Cake writes the mover's colour here */
        }
        for (i = 0; i < (n > 0 ? n : 1); i++)
            move->path[i] = chosen.to;
    } else if (strcmp(mode(), "disagree") == 0) {
        for (from = 1; from <= 32; from++)
            for (to = 1; to <= 32; to++)
                if (legal(given, color, from, to, &other) &&
                    !(same(other.from, chosen.from) && same(other.to, chosen.to))) {
                    *move = other;
                    return verdict;
                }
    } else if (strcmp(mode(), "neither") == 0) {
        memcpy(board, given, sizeof given);
    }
    return verdict;
}
