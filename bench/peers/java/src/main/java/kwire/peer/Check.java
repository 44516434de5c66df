package kwire.peer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * {@code java -cp ... kwire.peer.Check FRAMES_DIR}: decodes and re-encodes every frame (into a
 * new buffer and into a reused one) and prints one verdict per frame: "ok: ..." (timed) or
 * "unsupported: why" (not timed).
 */
public final class Check {
  private Check() {}

  static String verdict(Codec.Frame f) {
    String why = Codec.unsupported(f);
    if (why != null) {
      return "unsupported: " + why;
    }
    Codec.Decoded d;
    try {
      d = Codec.decode(f);
    } catch (RuntimeException e) {
      return "unsupported: decode fails: " + e;
    }
    if (d.remaining != 0) {
      return "unsupported: " + d.remaining + " bytes left unread after the body";
    }
    byte[] fresh = Codec.encode(d, null).array();
    if (!Arrays.equals(fresh, f.bytes)) {
      return "unsupported: re-encodes to other bytes (" + fresh.length + " bytes, frame "
          + f.bytes.length + ", first difference at byte " + Arrays.mismatch(fresh, f.bytes) + ")";
    }
    ByteBuffer reused = ByteBuffer.allocate(f.bytes.length + 64);
    for (int i = 0; i < 2; i++) {
      reused.clear();
      Codec.encode(d, reused);
      if (reused.position() != f.bytes.length
          || !Arrays.equals(reused.array(), 0, f.bytes.length, f.bytes, 0, f.bytes.length)) {
        return "unsupported: re-encodes into a reused buffer to other bytes";
      }
    }
    return "ok: decodes; re-encodes byte for byte (new and reused buffer; no decode into an "
        + "existing message: read() makes every collection anew)";
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: kwire.peer.Check FRAMES_DIR");
      System.exit(2);
    }
    for (Codec.Frame f : Codec.load(args[0])) {
      System.out.println(f.name + " (" + f.bytes.length + " bytes): " + verdict(f));
    }
  }
}
