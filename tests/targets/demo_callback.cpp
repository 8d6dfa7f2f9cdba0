// A small C++ library for the --native-stacks tests, compiled by the test itself (with
// and without frame pointers): C++ frames between two runs of Python frames, with
// names that only demangling makes readable.
namespace demo {

template <typename T>
struct Visitor {
    using Callback = int (*)(int);
    __attribute__((noinline)) static T visit(Callback cb, int n) {
        T sum = 0;
        for (int i = 0; i < n; ++i) sum += cb(i);
        asm volatile("" ::: "memory"); // no tail call: the frame stays
        return sum;
    }
};

__attribute__((noinline)) int runTwice(int (*cb)(int), int n) {
    int r = Visitor<int>::visit(cb, n);
    asm volatile("" ::: "memory");
    r += Visitor<int>::visit(cb, n);
    asm volatile("" ::: "memory");
    return r;
}

} // namespace demo

extern "C" int demo_run(int (*cb)(int), int n) {
    int r = demo::runTwice(cb, n);
    asm volatile("" ::: "memory");
    return r;
}
