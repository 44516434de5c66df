package kwire.peer;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * JMH benchmarks of Kafka's message classes on the frames of {@code frame_benchmark
 * --dump_frames} (directory: system property {@code kwire.frames}; frame: the {@code frame}
 * parameter, set by bench/peers/run.sh to the frames {@link Check} passes):
 * <ul>
 *   <li>{@code decode}: the frame's bytes wrapped in a ByteBuffer, the header and body read into
 *       new message objects ({@link Codec#decode});
 *   <li>{@code encode}: the decoded frame written into a new buffer of the exact size;
 *   <li>{@code encode_reused}: the same into one ByteBuffer kept across frames (cleared; the
 *       ObjectSerializationCache is one per encode: it memoises strings by identity between
 *       {@code size()} and {@code write()}, and kept across messages it would grow without
 *       bound and skip the work of the messages it has seen).
 * </ul>
 * No decode into an existing message: the generated {@code read()} makes every collection and
 * nested object anew, so a reused top-level object saves one allocation of thousands.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PeerBench {
  @Param({"Metadata/v5/response/1000partitions"})
  public String frame;

  private Codec.Frame f;
  private Codec.Decoded decoded;
  private ByteBuffer reused;

  @Setup(Level.Trial)
  public void setup() throws Exception {
    String dir = System.getProperty("kwire.frames");
    if (dir == null) {
      throw new IllegalStateException("set -Dkwire.frames=DIR (frame_benchmark --dump_frames)");
    }
    f = Codec.load(dir, frame);
    String v = Check.verdict(f);
    if (!v.startsWith("ok")) {
      throw new IllegalStateException(frame + ": " + v);
    }
    decoded = Codec.decode(f);
    reused = ByteBuffer.allocate(f.bytes.length);
  }

  @Benchmark
  public Object decode() {
    return Codec.decode(f);
  }

  @Benchmark
  public ByteBuffer encode() {
    return Codec.encode(decoded, null);
  }

  @Benchmark
  public ByteBuffer encode_reused() {
    reused.clear();
    return Codec.encode(decoded, reused);
  }
}
