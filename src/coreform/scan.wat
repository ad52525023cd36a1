;; The fast path of scanModule (read.ts, scanValid) in WebAssembly: the same grammar check over the
;; same bytes, step for step, with the same answer (0 valid, anything else: let the reader report
;; the error). A driver process runs V8 without its optimizing compiler (driver/launch.cjs), where a
;; JavaScript byte loop costs ~20 ns a byte; this one costs ~1-2 (docs/driver.md "Large modules").
;;
;; Memory layout (the caller sizes the memory and writes the tables and the input):
;;   [0, 256)           SCAN: byte -> class (read.ts SCAN; 0 ( 1 [ 2 { 3 ' 4 ) 5 ] 6 } 7 space
;;                      8 ; 9 " 10 digit 11 - 12 b 13 other)
;;   [256, 512)         HEX: byte -> hex digit value, 255 when not a hex digit
;;   [512, 512 + n)     the input bytes
;;   [stack, stack + n) open frames, one byte each (kind 0-3, plus 4 while a map holds an odd count)
;;   [bounds, ...)      i32 pairs: each top-level form's start and end (offsets into the input)
;; The count of pairs written is left in the global `count`.
(module
  (memory (export "memory") 1)
  (global $count (export "count") (mut i32) (i32.const 0))
  (func (export "scan") (param $n i32) (param $stack i32) (param $bounds i32) (result i32)
    (local $p i32) (local $k i32) (local $depth i32) (local $formStart i32)
    (local $q i32) (local $c i32) (local $e i32) (local $h1 i32) (local $h2 i32) (local $top i32)
    (global.set $count (i32.const 0))
    (loop $main
      ;; End of input: the open frames (0 when valid).
      (if (i32.ge_u (local.get $p) (local.get $n)) (then (return (local.get $depth))))
      (local.set $k (i32.load8_u (i32.load8_u offset=512 (local.get $p))))
      ;; Whitespace.
      (if (i32.eq (local.get $k) (i32.const 7))
        (then
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br $main)))
      ;; A comment: to the line feed, or the end.
      (if (i32.eq (local.get $k) (i32.const 8))
        (then
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (block $eol
            (loop $line
              (br_if $eol (i32.ge_u (local.get $p) (local.get $n)))
              (if (i32.eq (i32.load8_u offset=512 (local.get $p)) (i32.const 10))
                (then
                  (local.set $p (i32.add (local.get $p) (i32.const 1)))
                  (br $eol)))
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (br $line)))
          (br $main)))
      (if (i32.eqz (local.get $depth)) (then (local.set $formStart (local.get $p))))
      ;; `-` starts an integer when a digit follows, else a symbol; `b"` starts a bytes literal.
      (if (i32.eq (local.get $k) (i32.const 11))
        (then
          (local.set $k (i32.const 13))
          (if (i32.lt_u (i32.add (local.get $p) (i32.const 1)) (local.get $n))
            (then
              (if (i32.eq (i32.load8_u (i32.load8_u offset=513 (local.get $p))) (i32.const 10))
                (then (local.set $k (i32.const 10))))))))
      (if (i32.eq (local.get $k) (i32.const 12))
        (then
          (local.set $k (i32.const 13))
          (if (i32.lt_u (i32.add (local.get $p) (i32.const 1)) (local.get $n))
            (then
              (if (i32.eq (i32.load8_u offset=513 (local.get $p)) (i32.const 0x22))
                (then (local.set $k (i32.const 14))))))))
      (block $datum
        ;; Openers: a frame of their kind.
        (if (i32.le_u (local.get $k) (i32.const 3))
          (then
            (i32.store8 (i32.add (local.get $stack) (local.get $depth)) (local.get $k))
            (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $main)))
        ;; `)` and `]`: the innermost frame must be the matching list or vector.
        (if (i32.le_u (local.get $k) (i32.const 5))
          (then
            (if (i32.eqz (local.get $depth)) (then (return (i32.const -1))))
            (local.set $top (i32.load8_u (i32.sub (i32.add (local.get $stack) (local.get $depth)) (i32.const 1))))
            (if (i32.ne (i32.and (local.get $top) (i32.const 3)) (i32.sub (local.get $k) (i32.const 4)))
              (then (return (i32.const -1))))
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $datum)))
        ;; `}`: the innermost frame must be a map holding an even number of items.
        (if (i32.eq (local.get $k) (i32.const 6))
          (then
            (if (i32.eqz (local.get $depth)) (then (return (i32.const -1))))
            (if (i32.ne (i32.load8_u (i32.sub (i32.add (local.get $stack) (local.get $depth)) (i32.const 1))) (i32.const 2))
              (then (return (i32.const -1))))
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $datum)))
        ;; A string or bytes literal: to the closing quote, checking the escapes on the way.
        (if (i32.or (i32.eq (local.get $k) (i32.const 9)) (i32.eq (local.get $k) (i32.const 14)))
          (then
            (local.set $q (i32.add (local.get $p) (select (i32.const 1) (i32.const 2) (i32.eq (local.get $k) (i32.const 9)))))
            (loop $str
              (if (i32.ge_u (local.get $q) (local.get $n)) (then (return (i32.const -1))))
              (local.set $c (i32.load8_u offset=512 (local.get $q)))
              (if (i32.eq (local.get $c) (i32.const 0x22))
                (then
                  (local.set $p (i32.add (local.get $q) (i32.const 1)))
                  (br $datum)))
              (if (i32.ne (local.get $c) (i32.const 0x5c))
                (then
                  (local.set $q (i32.add (local.get $q) (i32.const 1)))
                  (br $str)))
              ;; An escape: a valid one and the closing quote all lie before the end.
              (if (i32.ge_u (i32.add (local.get $q) (i32.const 1)) (local.get $n)) (then (return (i32.const -1))))
              (local.set $e (i32.load8_u offset=513 (local.get $q)))
              (if (i32.or
                    (i32.or (i32.eq (local.get $e) (i32.const 0x5c)) (i32.eq (local.get $e) (i32.const 0x22)))
                    (i32.or (i32.eq (local.get $e) (i32.const 0x6e))
                      (i32.or (i32.eq (local.get $e) (i32.const 0x72)) (i32.eq (local.get $e) (i32.const 0x74)))))
                (then
                  (local.set $q (i32.add (local.get $q) (i32.const 2)))
                  (br $str)))
              (if (i32.eq (local.get $e) (i32.const 0x75))
                (then
                  ;; \uXXXX: four hex digits, not a surrogate (D800-DFFF).
                  (if (i32.ge_u (i32.add (local.get $q) (i32.const 5)) (local.get $n)) (then (return (i32.const -1))))
                  (local.set $h1 (i32.load8_u offset=256 (i32.load8_u offset=514 (local.get $q))))
                  (local.set $h2 (i32.load8_u offset=256 (i32.load8_u offset=515 (local.get $q))))
                  (if (i32.or
                        (i32.or (i32.eq (local.get $h1) (i32.const 255)) (i32.eq (local.get $h2) (i32.const 255)))
                        (i32.or
                          (i32.eq (i32.load8_u offset=256 (i32.load8_u offset=516 (local.get $q))) (i32.const 255))
                          (i32.eq (i32.load8_u offset=256 (i32.load8_u offset=517 (local.get $q))) (i32.const 255))))
                    (then (return (i32.const -1))))
                  (if (i32.and (i32.eq (local.get $h1) (i32.const 13)) (i32.ge_u (local.get $h2) (i32.const 8)))
                    (then (return (i32.const -1))))
                  (local.set $q (i32.add (local.get $q) (i32.const 6)))
                  (br $str)))
              (if (i32.eq (local.get $e) (i32.const 0x78))
                (then
                  ;; \xNN
                  (if (i32.ge_u (i32.add (local.get $q) (i32.const 3)) (local.get $n)) (then (return (i32.const -1))))
                  (if (i32.or
                        (i32.eq (i32.load8_u offset=256 (i32.load8_u offset=514 (local.get $q))) (i32.const 255))
                        (i32.eq (i32.load8_u offset=256 (i32.load8_u offset=515 (local.get $q))) (i32.const 255)))
                    (then (return (i32.const -1))))
                  (local.set $q (i32.add (local.get $q) (i32.const 4)))
                  (br $str)))
              (return (i32.const -1)))))
        ;; An integer: digits.
        (if (i32.eq (local.get $k) (i32.const 10))
          (then
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (block $int
              (loop $digits
                (br_if $int (i32.ge_u (local.get $p) (local.get $n)))
                (br_if $int (i32.ne (i32.load8_u (i32.load8_u offset=512 (local.get $p))) (i32.const 10)))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $digits)))
            (br $datum)))
        ;; A symbol: up to a delimiter (classes 0-9).
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (block $sym
          (loop $chars
            (br_if $sym (i32.ge_u (local.get $p) (local.get $n)))
            (br_if $sym (i32.lt_u (i32.load8_u (i32.load8_u offset=512 (local.get $p))) (i32.const 10)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $chars))))
      ;; A datum ended at p: it completes the quote frames around it, then is an item of the
      ;; innermost container, or a top-level form.
      (block $quotes
        (loop $pop
          (br_if $quotes (i32.eqz (local.get $depth)))
          (br_if $quotes (i32.ne (i32.load8_u (i32.sub (i32.add (local.get $stack) (local.get $depth)) (i32.const 1))) (i32.const 3)))
          (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
          (br $pop)))
      (if (i32.eqz (local.get $depth))
        (then
          (i32.store (i32.add (local.get $bounds) (i32.shl (global.get $count) (i32.const 3))) (local.get $formStart))
          (i32.store offset=4 (i32.add (local.get $bounds) (i32.shl (global.get $count) (i32.const 3))) (local.get $p))
          (global.set $count (i32.add (global.get $count) (i32.const 1))))
        (else
          (local.set $top (i32.sub (i32.add (local.get $stack) (local.get $depth)) (i32.const 1)))
          (i32.store8 (local.get $top) (i32.xor (i32.load8_u (local.get $top)) (i32.const 4)))))
      (br $main))
    (i32.const -1)))
