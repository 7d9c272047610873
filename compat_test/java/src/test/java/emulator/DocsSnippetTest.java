package emulator;

import org.junit.jupiter.api.Test;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/** The ```java program of docs/connecting.md's "## Java" section, compiled and run as written. */
class DocsSnippetTest {
    static String javaSection(String file) throws Exception {
        String text = Files.readString(Path.of("..", "..", "docs", file));
        int start = text.indexOf("\n## Java\n");
        assertTrue(start >= 0, file + " has no ## Java section");
        String section = text.substring(start + 1);
        int next = section.indexOf("\n## ", 1);
        if (next >= 0) {
            section = section.substring(0, next);
        }
        Matcher m = Pattern.compile("(?ms)^```java\n(.*?)^```\n").matcher(section);
        assertTrue(m.find(), file + "'s Java section has no ```java block");
        return m.group(1);
    }

    @Test
    void connectingQuickStartRunsAsWritten() throws Exception {
        String code = javaSection("connecting.md");
        Matcher cls = Pattern.compile("public class (\\w+)").matcher(code);
        assertTrue(cls.find());
        Path dir = Files.createTempDirectory("snippet");
        Path src = dir.resolve(cls.group(1) + ".java");
        Files.writeString(src, code);
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errs = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errs, "-cp", cp, "-d", dir.toString(), src.toString());
        assertEquals(0, rc, "the documented program does not compile:\n" + errs);
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass(cls.group(1)).getMethod("main", String[].class);
            System.setOut(new PrintStream(printed, true));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(out);
        }
        assertEquals("read first\nquery found 1\n", printed.toString().replace(File.separator.equals("\\") ? "\r" : "\u0000", ""));
    }
}
