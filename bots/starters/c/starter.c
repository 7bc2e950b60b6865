/* A Dungeon of Doom bot for the classic world, in C99 with POSIX sockets only.
 *
 *   cc -O2 -o starter starter.c
 *   ./starter --host 127.0.0.1 --port 40004 --name Ada --game duel
 *
 * It says EXTEND bot, JOIN <game> (with --game) and HELLO <name>, then, until the
 * server's final line (WIN, LOSE or BYE, which it prints and exits 0 on): LOOK,
 * remember what it saw, PICKUP the gold it stands on, and walk the shortest known path
 * to the nearest gold (to the nearest exit once it holds enough), or else to the nearest
 * known square next to one it has never seen. Errors go to stderr, with exit status 1.
 * The replies are in docs/protocol.md; README.md says how to enter it in dod-arena.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/* Squares remembered each way from the start, which is in the middle: the bot plays maps
 * up to SIZE / 2 squares across, and says so on a larger one. */
#define SIZE 512

static const char STEP_NAMES[] = "NESW"; /* tried in this order */
static const int DR[] = {-1, 0, 1, 0}, DC[] = {0, 1, 0, -1};

static char tiles[SIZE][SIZE]; /* what was seen on each square; 0: never seen */
static int row = SIZE / 2, column = SIZE / 2;

static int server;        /* the connection */
static FILE *from_server; /* ... read a line at a time */

static void fail(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vfprintf(stderr, format, arguments);
    va_end(arguments);
    fputc('\n', stderr);
    exit(1);
}

/* The server's next line, without its end; a final line ends the game wherever it comes. */
static char *read_line(void) {
    static char *line = NULL;
    static size_t capacity = 0;
    ssize_t length = getline(&line, &capacity, from_server);
    if (length < 0) fail("the server closed the connection without a final line");
    line[strcspn(line, "\r\n")] = '\0';
    if (strncmp(line, "WIN", 3) == 0 || strncmp(line, "LOSE", 4) == 0 ||
        strncmp(line, "BYE", 3) == 0) {
        printf("%s\n", line); /* why the game ended */
        exit(0);
    }
    return line;
}

/* Send a command and read its one-line reply; ERROR ends the bot. */
static char *ask(const char *format, ...) {
    char command[1100];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(command, sizeof command - 1, format, arguments);
    va_end(arguments);
    size_t length = strlen(command);
    command[length++] = '\n';
    for (size_t sent = 0; sent < length;) {
        ssize_t written = send(server, command + sent, length - sent, MSG_NOSIGNAL);
        if (written < 0) {
            read_line(); /* the server closed: its final line says why */
            fail("cannot send to the server");
        }
        sent += (size_t)written;
    }
    char *reply = read_line();
    if (strncmp(reply, "ERROR", 5) == 0) fail("%.*s: %s", (int)length - 1, command, reply);
    return reply;
}

static void look(void) {
    if (strcmp(ask("LOOK"), "LOOKREPLY") != 0) fail("LOOK was not answered with LOOKREPLY");
    for (int r = 0; r < 5; r++) {
        const char *line = read_line();
        for (int c = 0; c < 5 && line[c]; c++) {
            int at_row = row + r - 2, at_column = column + c - 2;
            if (strchr("XPB", line[c])) continue; /* corners; a player hides the tile */
            if (at_row < 1 || at_row >= SIZE - 1 || at_column < 1 || at_column >= SIZE - 1)
                fail("the map is larger than this bot remembers: raise SIZE in starter.c");
            tiles[at_row][at_column] = line[c];
        }
    }
}

static int is_open(int r, int c) { return tiles[r][c] != 0 && tiles[r][c] != '#'; }

static int is_frontier(int r, int c) {
    for (int d = 0; d < 4; d++)
        if (tiles[r + DR[d]][c + DC[d]] == 0) return 1;
    return 0;
}

/* The first step (0 to 3) of a shortest walk over open squares to the nearest other
 * square holding `wanted`, or, for 0, next to a square never seen; -1 if none. */
static int first_step(char wanted) {
    static int visited[SIZE][SIZE], search = 0; /* visited[r][c] == search: seen this time */
    static signed char first[SIZE][SIZE];       /* the first step of the walk found there */
    static int queue[SIZE * SIZE];
    int head = 0, tail = 0;
    search++;
    visited[row][column] = search;
    queue[tail++] = row * SIZE + column;
    while (head < tail) {
        int r = queue[head] / SIZE, c = queue[head] % SIZE, start = head++ == 0;
        if (!start && (wanted ? tiles[r][c] == wanted : is_frontier(r, c))) return first[r][c];
        for (int d = 0; d < 4; d++) {
            int next_r = r + DR[d], next_c = c + DC[d];
            if (visited[next_r][next_c] == search || !is_open(next_r, next_c)) continue;
            visited[next_r][next_c] = search;
            first[next_r][next_c] = (signed char)(start ? d : first[r][c]);
            queue[tail++] = next_r * SIZE + next_c;
        }
    }
    return -1;
}

static void connect_to(const char *host, const char *port) {
    struct addrinfo hints = {0}, *found, *address;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int error = getaddrinfo(host, port, &hints, &found);
    if (error) fail("cannot connect to %s:%s: %s", host, port, gai_strerror(error));
    int why = 0; /* errno of the last address tried */
    server = -1;
    for (address = found; address && server < 0; address = address->ai_next) {
        server = socket(address->ai_family, address->ai_socktype, address->ai_protocol);
        if (server < 0 || connect(server, address->ai_addr, address->ai_addrlen) < 0) {
            why = errno;
            if (server >= 0) close(server);
            server = -1;
        }
    }
    freeaddrinfo(found);
    if (server < 0) fail("cannot connect to %s:%s: %s", host, port, strerror(why));
    from_server = fdopen(server, "r");
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1", *port = "40004", *game = NULL;
    char name[32];
    snprintf(name, sizeof name, "c-%d", (int)getpid());
    const char *name_given = name;
    for (int i = 1; i < argc; i += 2) {
        const char **option = strcmp(argv[i], "--host") == 0   ? &host
                              : strcmp(argv[i], "--port") == 0 ? &port
                              : strcmp(argv[i], "--name") == 0 ? &name_given
                              : strcmp(argv[i], "--game") == 0 ? &game
                                                               : NULL;
        if (option == NULL || i + 1 >= argc) {
            fprintf(stderr, "usage: %s [--host H] [--port P] [--name N] [--game G]\n", argv[0]);
            return 2;
        }
        *option = argv[i + 1];
    }
    connect_to(host, port);

    ask("EXTEND bot"); /* others see us as B */
    if (game) ask("JOIN %s", game);
    int goal, gold = 0, blocked = 0; /* blocked: moves failed in a row (a player in the way) */
    if (sscanf(ask("HELLO %s", name_given), "GOLD %d", &goal) != 1) fail("HELLO: no GOLD");
    fprintf(stderr, "playing %s as %s: %d gold to win\n", game ? game : "default", name_given,
            goal);
    for (;;) {
        look();
        if (tiles[row][column] == 'G') {
            sscanf(ask("PICKUP"), "SUCCESS, GOLD COINS: %d", &gold); /* or FAIL */
            tiles[row][column] = '.';
            continue;
        }
        char wanted = gold >= goal ? 'E' : 'G';
        int direction = first_step(wanted), open[4], open_count = 0;
        if (direction < 0) direction = first_step(0);
        for (int d = 0; d < 4; d++)
            if (is_open(row + DR[d], column + DC[d])) open[open_count++] = d;
        if (direction < 0 && wanted == 'E' && tiles[row][column] == 'E' && open_count > 0)
            direction = open[0]; /* step off the exit, then back */
        if (direction < 0) {
            fprintf(stderr, "seen everything reachable and cannot win: quitting\n");
            ask("QUIT"); /* answered by the final line BYE */
            fail("QUIT was not answered with BYE");
        }
        if (blocked > 0) direction = open[blocked % open_count];
        if (strcmp(ask("MOVE %c", STEP_NAMES[direction]), "SUCCESS") != 0) {
            blocked++;
            continue;
        }
        blocked = 0;
        row += DR[direction];
        column += DC[direction];
        if (tiles[row][column] == 'E' && gold >= goal) read_line(); /* WIN */
    }
}
