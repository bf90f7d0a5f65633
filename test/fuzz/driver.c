/*
 * driver.c: runs a libFuzzer target without libFuzzer, so that every fuzz
 * target also runs in `make check`.
 *
 *   NAME_fuzz [CORPUS_DIR_OR_FILE...]
 *
 * Without arguments the corpus is $TOP_SRCDIR/test/fuzz/corpus/NAME (as
 * `make check` runs it).  Replays every corpus file, then feeds FUZZ_ITERATIONS (default 20000)
 * mutations of them (bit flips, byte insertions and deletions, splices of
 * two inputs, truncations) from a fixed seed (FUZZ_SEED, default 1), so a
 * run is bounded and repeatable.  A crash or sanitizer report fails the
 * test; the input that caused it is written to ./fuzz-crash-NAME first.
 * For real fuzzing, build the same target with clang -fsanitize=fuzzer and
 * no driver (see test/fuzz.mk).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
    uint8_t *data;
    size_t size;
};

static struct input *inputs;
static size_t ninputs;
static const char *crash_path = "fuzz-crash";

static void add_input(const uint8_t *data, size_t size)
{
    inputs = realloc(inputs, (ninputs + 1) * sizeof(*inputs));
    inputs[ninputs].data = malloc(size ? size : 1);
    memcpy(inputs[ninputs].data, data, size);
    inputs[ninputs].size = size;
    ninputs++;
}

static void load_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t buf[1 << 16];
    size_t n;

    if (f == NULL) {
        perror(path);
        exit(2);
    }
    n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    add_input(buf, n);
}

static void load(const char *path)
{
    struct stat st;
    struct dirent *de;
    DIR *d;
    char sub[4096];

    if (stat(path, &st) != 0) {
        perror(path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        load_file(path);
        return;
    }
    d = opendir(path);
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
        load_file(sub);
    }
    closedir(d);
}

static uint64_t rng_state;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Writes the input before running it, so a crash leaves it behind. */
static void run(const uint8_t *data, size_t size)
{
    FILE *f = fopen(crash_path, "wb");

    if (f != NULL) {
        fwrite(data, 1, size, f);
        fclose(f);
    }
    LLVMFuzzerTestOneInput(data, size);
}

static size_t mutate(uint8_t *buf, size_t size, size_t cap)
{
    const struct input *other;
    size_t pos, n;

    switch (rng() % 6) {
    case 0: /* flip a bit */
        if (size)
            buf[rng() % size] ^= (uint8_t)(1u << (rng() % 8));
        break;
    case 1: /* insert a byte, often a delimiter */
        if (size < cap) {
            static const char interesting[] = ",=!()\\\"{}[]:%+ \0\xff/";
            pos = size ? rng() % (size + 1) : 0;
            memmove(buf + pos + 1, buf + pos, size - pos);
            buf[pos] = rng() % 2 ? (uint8_t)interesting[rng() % (sizeof(interesting) - 1)]
                                 : (uint8_t)rng();
            size++;
        }
        break;
    case 2: /* delete a byte */
        if (size) {
            pos = rng() % size;
            memmove(buf + pos, buf + pos + 1, size - pos - 1);
            size--;
        }
        break;
    case 3: /* truncate */
        if (size)
            size = rng() % size;
        break;
    case 4: /* splice in part of another input */
        other = &inputs[rng() % ninputs];
        if (other->size) {
            pos = size ? rng() % size : 0;
            n = rng() % other->size + 1;
            if (pos + n > cap)
                n = cap - pos;
            memcpy(buf + pos, other->data + rng() % (other->size - (n > other->size ? other->size : n) + 1), n > other->size ? other->size : n);
            if (pos + n > size)
                size = pos + n;
        }
        break;
    default: /* duplicate a range */
        if (size && size * 2 <= cap) {
            pos = rng() % size;
            n = rng() % (size - pos) + 1;
            memmove(buf + pos + n, buf + pos, size - pos);
            size += n;
        }
        break;
    }
    return size;
}

int main(int argc, char **argv)
{
    const char *env;
    long iterations = 20000;
    static uint8_t buf[1 << 17];
    const char *name = strrchr(argv[0], '/');
    char path[256];

    snprintf(path, sizeof(path), "fuzz-crash-%s", name ? name + 1 : argv[0]);
    crash_path = path;
    rng_state = 1;
    if ((env = getenv("FUZZ_ITERATIONS")) != NULL)
        iterations = atol(env);
    if ((env = getenv("FUZZ_SEED")) != NULL)
        rng_state = strtoull(env, NULL, 10) | 1;
    for (int i = 1; i < argc; i++)
        load(argv[i]);
    if (argc == 1) {
        const char *top = getenv("TOP_SRCDIR");
        char dir[4096];
        struct stat st;
        const char *base = name ? name + 1 : argv[0];
        size_t blen = strlen(base);

        if (blen > 5 && strcmp(base + blen - 5, "_fuzz") == 0)
            blen -= 5;
        snprintf(dir, sizeof(dir), "%s/test/fuzz/corpus/%.*s",
                 top ? top : ".", (int)blen, base);
        if (stat(dir, &st) == 0)
            load(dir);
    }
    if (ninputs == 0)
        add_input((const uint8_t *)"", 0);

    for (size_t i = 0; i < ninputs; i++)
        run(inputs[i].data, inputs[i].size);
    for (long i = 0; i < iterations; i++) {
        const struct input *seed = &inputs[rng() % ninputs];
        size_t size = seed->size < sizeof(buf) / 2 ? seed->size : sizeof(buf) / 2;

        memcpy(buf, seed->data, size);
        for (int m = 1 + (int)(rng() % 4); m > 0; m--)
            size = mutate(buf, size, sizeof(buf));
        run(buf, size);
    }
    remove(crash_path);
    printf("%zu corpus inputs, %ld mutations: no crash\n", ninputs, iterations);
    return 0;
}
