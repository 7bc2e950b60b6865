/* The original baddies console game, rebuilt in C from RULES §3 and the original's
   main program, for the tests: compiled with the machine's C compiler, it uses the
   real glibc rand(), scans the grid row by row with a "moved" mark per square, and
   reads input with scanf as the original reads it with cin. Valid input only: the
   tests compare it with the Python game on sessions that end before the input does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int R, C, HR, HC, won;
static char *cell, *moved;
#define AT(r, c) cell[(r) * C + (c)]

static int baddie(char ch) { return ch == 'm' || ch == 'M' || ch == '~'; }

static void place(char glyph, int count, int middle) {
    for (int i = 0; i < count; ++i) {
        int r = rand() % R;
        int c = 3 + rand() % middle;
        while (AT(r, c) != ' ') {
            r = rand() % R;
            c = 3 + rand() % middle;
        }
        AT(r, c) = glyph;
    }
}

static void setup(unsigned seed, int abysses, int monsters, int bats) {
    srand(seed);
    int r = rand() % R, c = rand() % 3;
    AT(r, c) = 'H';
    HR = r;
    HC = c;
    r = rand() % R;
    c = C - 1 - rand() % 3;
    AT(r, c) = '*';
    int middle = C - 6;
    c = 3 + rand() % middle;
    for (r = 0; r < R / 2; ++r) AT(r, c) = '+';
    int top = c;
    while (c == top || c == top - 1 || c == top + 1) c = 3 + rand() % middle;
    for (r = R - 1; r > R / 2; --r) AT(r, c) = '+';
    int bottom = c;
    while (c == top || c == top - 1 || c == top + 1 || c == bottom || c == bottom - 1 ||
           c == bottom + 1)
        c = 3 + rand() % middle;
    for (r = R / 4; r < 3 * R / 4; ++r) AT(r, c) = '+';
    place('m', monsters - monsters / 3, middle);
    place('M', monsters / 3, middle);
    place('~', bats, middle);
    place('#', abysses, middle);
}

static void display(void) {
    for (int c = 0; c < C + 2; ++c) putchar('-');
    putchar('\n');
    for (int r = 0; r < R; ++r) {
        putchar('|');
        for (int c = 0; c < C; ++c) putchar(AT(r, c));
        puts("|");
    }
    for (int c = 0; c < C + 2; ++c) putchar('-');
    putchar('\n');
}

static int sign(int v) { return (v > 0) - (v < 0); }

static int make_moves(char key) {
    int dr = 0, dc = 0;
    switch (key) {
        case 'q': dr = -1; dc = -1; break;
        case 'w': dr = -1; break;
        case 'e': dr = -1; dc = 1; break;
        case 'a': dc = -1; break;
        case 'd': dc = 1; break;
        case 'z': dr = 1; dc = -1; break;
        case 'x': dr = 1; break;
        case 'c': dr = 1; dc = 1; break;
    }
    int nr = HR + dr, nc = HC + dc;
    if (nr < 0 || nr >= R) {
        puts("Hero trying to move out-of-bounds with an invalid row");
        nr = HR;
        puts("Changing row for Hero position to stay in-bounds");
    }
    if (nc < 0 || nc >= C) {
        puts("Hero trying to move out-of-bounds with an invalid column");
        nc = HC;
        puts("Changing column for Hero position to stay in-bounds");
    }
    if (AT(nr, nc) == '+') {
        puts("Hero trying to move into a barrier");
        nc = HC;
        if (AT(nr, nc) == '+') nr = HR;
        puts("Changing Hero position to stay off barrier");
    }
    char there = AT(nr, nc);
    if (there == '*') {
        puts("Hero has reached the exit!");
        puts("Hero has escaped!");
        AT(HR, HC) = ' ';
        won = 1;
        return 0;
    }
    if (there == '#' || baddie(there)) {
        puts("Uh Oh! Hero has moved into a Baddie or the Abyss...");
        puts("Be more careful next time...");
        AT(HR, HC) = ' ';
        return 0;
    }
    AT(HR, HC) = ' ';
    AT(nr, nc) = 'H';
    HR = nr;
    HC = nc;
    memset(moved, 0, (size_t)R * C);
    int alive = 1;
    for (int r = 0; r < R; ++r) {
        for (int c = 0; c < C; ++c) {
            char me = AT(r, c);
            if (!baddie(me) || moved[r * C + c]) continue;
            int tr, tc;
            if (me == '~') {
                tr = r;
                tc = HC;
            } else {
                int power = me == 'M' ? 2 : 1;
                tr = r + power * sign(HR - r);
                tc = c + power * sign(HC - c);
            }
            if (tr < 0 || tr >= R) {
                puts("Baddie trying to move out-of-bounds with an invalid row");
                tr = r;
                puts("Changing row for Baddie position to stay in-bounds");
            }
            if (tc < 0 || tc >= C) {
                puts("Baddie trying to move out-of-bounds with an invalid column");
                tc = c;
                puts("Changing column for Baddie position to stay in-bounds");
            }
            if (AT(tr, tc) == '+' || AT(tr, tc) == '*') {
                puts("Baddie trying to move into a barrier");
                tc = c;
                if (AT(tr, tc) == '+' || AT(tr, tc) == '*') tr = r;
                puts("Changing Baddie position to stay off barrier");
            }
            char target = AT(tr, tc);
            if (target == '#') {
                puts("Yipee! A Baddie has moved into the Abyss...");
                puts("One less Baddie on the board!");
                AT(r, c) = ' ';
                continue;
            }
            if (baddie(target)) continue;
            if (target == 'H') {
                puts("Uh Oh! A Baddie has caught the Hero...");
                puts("Better luck next time...");
                alive = 0;
            }
            AT(r, c) = ' ';
            AT(tr, tc) = me;
            moved[tr * C + tc] = 1;
        }
    }
    return alive;
}

static int ask(const char *prompt) {
    int value = -1;
    printf("%s", prompt);
    if (scanf("%d", &value) != 1) exit(1);
    putchar('\n');
    return value;
}

int main(void) {
    int rows = 0, columns = 0, abysses = -1, monsters = -1, bats = -1;
    while (rows < 10 || rows > 30) rows = ask("Enter the number of rows (10-30) for the board: ");
    while (columns < 15 || columns > 100)
        columns = ask("Enter the number of columns (15-100) for the board: ");
    while (abysses < 0 || abysses > 200)
        abysses = ask("Enter the number of abyss cells (0-200) on the board: ");
    while (monsters < 0 || monsters > 30)
        monsters = ask("Enter the number of monsters (0-30) on the board, ~1/3 will be super "
                       "monsters: ");
    while (bats < 0 || bats > 10) bats = ask("Enter the number of bats (0-10) on the board: ");
    int seed = ask("Enter a seed for the random number generator (-1 to use system time): ");
    R = rows;
    C = columns;
    cell = malloc((size_t)R * C);
    moved = malloc((size_t)R * C);
    memset(cell, ' ', (size_t)R * C);
    setup(seed < 0 ? (unsigned)time(0) : (unsigned)seed, abysses, monsters, bats);
    display();
    int playing = 1;
    while (playing) {
        char key;
        printf("Your move. Where to? ['s' to stay, etc.]: ");
        if (scanf(" %c", &key) != 1) exit(1);
        putchar('\n');
        playing = make_moves(key);
        display();
    }
    puts(won ? "Hero Escaped!" : "Hero did not escape...");
    puts("Game Over.");
    return 0;
}
