/* Figures read back through libpng: the bare field is a pixel block per
 * cell in the colour map's colours (missing values grey, rows flipped on
 * request), a decorated one has its title, frame and colour bar where the
 * layout puts them; what cannot be drawn is an error, and nothing is left
 * behind. */
#include <math.h>
#include <png.h>
#include <unistd.h>

#include "testutil.h"
#include "ipfsrt/image.h"

typedef struct picture {
    png_uint_32 width, height;
    unsigned char *rgb;
} picture;

static void read_png(const char *path, picture *p) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, path));
    img.format = PNG_FORMAT_RGB;
    p->width = img.width, p->height = img.height;
    p->rgb = malloc(PNG_IMAGE_SIZE(img));
    assert_non_null(p->rgb);
    assert_true(png_image_finish_read(&img, NULL, p->rgb, 0, NULL));
}

static const unsigned char *pixel(const picture *p, size_t x, size_t y) { return p->rgb + (y * p->width + x) * 3; }

/* A fresh file's name in path ("/tmp/ipfsrt-image-XXXXXX"). */
static void temp_path(char *path) {
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

/* A 2 x 3 field: 0 .. 4 and a NaN. */
static ipfsrt_ndarray field(void) {
    ipfsrt_ndarray a;
    ipfsrt_ndarray_init(&a);
    size_t shape[2] = {2, 3};
    assert_int_equal(ipfsrt_ndarray_zeros(&a, IPFSRT_DTYPE_FLOAT64, 0, 2, shape, NULL), IPFSRT_OK);
    double *v = (double *)(void *)a.data;
    for (int i = 0; i < 6; i++) v[i] = i;
    v[5] = NAN;
    return a;
}

static void test_bare_field(void **state) {
    (void)state;
    char path[] = "/tmp/ipfsrt-image-XXXXXX";
    temp_path(path);
    ipfsrt_ndarray a = field();
    ipfsrt_image_figure f = {.size = sizeof f, .vmin = 0, .vmax = 4, .scale = 2, .flip = true, .cmap = IPFSRT_IMAGE_CMAP_VIRIDIS};
    assert_int_equal(ipfsrt_image_write_figure(path, &a, &f, NULL), IPFSRT_OK);
    picture p;
    read_png(path, &p);
    assert_int_equal(p.width, 6);
    assert_int_equal(p.height, 4);
    static const unsigned char low[3] = {68, 1, 84}, high[3] = {253, 231, 37}; /* viridis' ends */
    assert_memory_equal(pixel(&p, 0, 3), low, 3);  /* row 0 at the bottom: 0 is vmin */
    assert_memory_equal(pixel(&p, 3, 1), high, 3); /* row 1 (top), column 1: 4 is vmax */
    static const unsigned char grey[3] = {160, 160, 160};
    assert_memory_equal(pixel(&p, 5, 0), grey, 3); /* the NaN */
    free(p.rgb);
    unlink(path);
    ipfsrt_ndarray_free(&a);
}

static void test_decorated_figure(void **state) {
    (void)state;
    char path[] = "/tmp/ipfsrt-image-XXXXXX";
    temp_path(path);
    ipfsrt_ndarray a = field();
    ipfsrt_image_tick xt[] = {{0, "0°E"}, {2, "90°E"}};
    ipfsrt_image_figure f = {.size = sizeof f, .scale = 40, .cmap = IPFSRT_IMAGE_CMAP_RDBU_R, .colorbar = true, .title = "Title",
                             .units = "K", .xticks = xt, .n_xticks = 2};
    assert_int_equal(ipfsrt_image_write_figure(path, &a, &f, NULL), IPFSRT_OK);
    picture p;
    read_png(path, &p);
    assert_true(p.width > 120 && p.height > 80 + 40); /* the field, margins, the bar beneath */
    size_t dark = 0;
    for (size_t y = 0; y < 30; y++) /* the title, in the top margin */
        for (size_t x = 0; x < p.width; x++) dark += pixel(&p, x, y)[0] == 0;
    assert_true(dark > 20);
    free(p.rgb);
    ipfsrt_error err;
    f.vmin = 3, f.vmax = 3; /* an empty scale */
    assert_int_equal(ipfsrt_image_write_figure(path, &a, &f, &err), IPFSRT_EBAD_ARGUMENT);
    unlink(path);
    ipfsrt_ndarray_free(&a);
}

static void test_refusals(void **state) {
    (void)state;
    ipfsrt_ndarray a;
    ipfsrt_ndarray_init(&a);
    size_t shape[3] = {2, 2, 2};
    assert_int_equal(ipfsrt_ndarray_zeros(&a, IPFSRT_DTYPE_FLOAT32, 0, 3, shape, NULL), IPFSRT_OK);
    ipfsrt_image_figure f = {.size = sizeof f, .scale = 1};
    ipfsrt_error err;
    assert_int_equal(ipfsrt_image_write_figure("/tmp/ipfsrt-never.png", &a, &f, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "2-d field"));
    assert_int_equal(access("/tmp/ipfsrt-never.png", F_OK), -1);
    ipfsrt_ndarray_free(&a);
    ipfsrt_ndarray b = field();
    assert_int_equal(ipfsrt_image_write_figure("/nonexistent-dir/x.png", &b, &f, &err), IPFSRT_EIO);
    ipfsrt_ndarray_free(&b);
}

/* A line plot: its size, each series' colour where its points are, a gap
 * at NaN; ranges that cannot be drawn refused, nothing left behind. */
static void test_line_plot(void **state) {
    (void)state;
    char path[] = "/tmp/ipfsrt-image-XXXXXX";
    temp_path(path);
    double x[5] = {0, 1, 2, 3, 4}, up[5] = {0, 1, NAN, 3, 4}, flat[5] = {2, 2, 2, 2, 2};
    ipfsrt_image_series s[2] = {{x, up, 5, "up"}, {x, flat, 5, "flat"}};
    ipfsrt_image_tick yt[] = {{0, "0"}, {2, "2"}, {4, "4"}};
    ipfsrt_image_lines f;
    ipfsrt_image_lines_init(&f);
    f.xlo = 0, f.xhi = 4, f.ylo = 0, f.yhi = 4, f.series = s, f.n_series = 2, f.yticks = yt, f.n_yticks = 3;
    f.title = "Two series", f.ylabel = "K";
    assert_int_equal(ipfsrt_image_write_lines(path, &f, NULL), IPFSRT_OK);
    picture p;
    read_png(path, &p);
    assert_int_equal(p.width, 800);
    assert_int_equal(p.height, 380);
    size_t blue = 0, orange = 0;
    for (size_t y = 0; y < p.height; y++)
        for (size_t i = 0; i < p.width; i++) {
            const unsigned char *c = pixel(&p, i, y);
            blue += c[0] == 31 && c[1] == 119 && c[2] == 180;
            orange += c[0] == 255 && c[1] == 127 && c[2] == 14;
        }
    assert_true(blue > 300 && orange > 300); /* both lines, and the legend's marks */
    free(p.rgb);
    ipfsrt_error err;
    f.yhi = f.ylo; /* an empty range */
    unlink(path);
    assert_int_equal(ipfsrt_image_write_lines(path, &f, &err), IPFSRT_EBAD_ARGUMENT);
    assert_int_equal(access(path, F_OK), -1);
    f.yhi = 4, f.width = 10;
    assert_int_equal(ipfsrt_image_write_lines(path, &f, &err), IPFSRT_EBAD_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bare_field),
        cmocka_unit_test(test_decorated_figure),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_line_plot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
