//! Go's `text/tabwriter`, which lays out every kubectl table and describe page.
//!
//! kubectl's exact spacing (including the trailing blanks of describe's condition tables and
//! how alignment restarts after a line without tabs) comes from this algorithm, so it is
//! reproduced as written in Go: cells are tab-terminated, the text after a line's last tab
//! is never aligned, a column block is a run of consecutive lines that have a cell in that
//! column, and a line without tabs flushes everything before it.

/// Lays out `text` (lines ending in `\n`, cells separated by `\t`) with Go's rules:
/// `minwidth` and `padding` as in `tabwriter.NewWriter(out, minwidth, _, padding, ' ', 0)`.
pub fn layout(text: &str, minwidth: usize, padding: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut block: Vec<Vec<&str>> = Vec::new();
    let body = text.strip_suffix('\n').unwrap_or(text);
    for line in body.split('\n') {
        let cells: Vec<&str> = line.split('\t').collect();
        let single = cells.len() == 1;
        block.push(cells);
        if single {
            format(&block, &mut Vec::new(), minwidth, padding, &mut out);
            block.clear();
        }
    }
    format(&block, &mut Vec::new(), minwidth, padding, &mut out);
    if !text.ends_with('\n') && out.ends_with('\n') {
        out.pop();
    }
    out
}

fn width(cell: &str) -> usize {
    cell.chars().count()
}

fn format(lines: &[Vec<&str>], widths: &mut Vec<usize>, minwidth: usize, padding: usize, out: &mut String) {
    let column = widths.len();
    let mut line0 = 0;
    let mut this = 0;
    while this < lines.len() {
        if column + 1 >= lines[this].len() {
            this += 1;
            continue;
        }
        write_lines(&lines[line0..this], widths, out);
        line0 = this;
        let mut w = minwidth;
        while this < lines.len() && column + 1 < lines[this].len() {
            w = w.max(width(lines[this][column]) + padding);
            this += 1;
        }
        widths.push(w);
        format(&lines[line0..this], widths, minwidth, padding, out);
        widths.pop();
        line0 = this;
    }
    write_lines(&lines[line0..], widths, out);
}

fn write_lines(lines: &[Vec<&str>], widths: &[usize], out: &mut String) {
    for line in lines {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if j < widths.len() {
                out.extend(std::iter::repeat_n(' ', widths[j].saturating_sub(width(cell))));
            }
        }
        out.push('\n');
    }
}

/// kubectl's table writer: min width 6, padding 3.
pub fn table(text: &str) -> String {
    layout(text, 6, 3)
}

/// kubectl describe's writer: min width 0, padding 2.
pub fn describe(text: &str) -> String {
    layout(text, 0, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_pad_all_but_the_last_column() {
        let t = table("NAME\tPOD-SELECTOR\tAGE\nadservice\tapp=adservice\t2m\nx\t<none>\t10s\n");
        assert_eq!(
            t,
            "NAME        POD-SELECTOR    AGE\nadservice   app=adservice   2m\nx           <none>          10s\n"
        );
    }

    #[test]
    fn min_width_applies() {
        assert_eq!(table("A\tB\nc\td\n"), "A     B\nc     d\n");
    }

    #[test]
    fn lines_without_tabs_restart_alignment() {
        let t = describe("Name:\tx\nAnnotations:\t<none>\nSpec:\n  Long label here:\ty\n  a:\tz\n");
        assert_eq!(
            t,
            "Name:         x\nAnnotations:  <none>\nSpec:\n  Long label here:  y\n  a:                z\n"
        );
    }

    #[test]
    fn column_blocks_are_contiguous_runs() {
        // The second column only aligns among lines that have a third cell.
        let t = describe("a\tb\tc\nlonger\tb\nx\tyy\tz\n");
        assert_eq!(t, "a       b  c\nlonger  b\nx       yy  z\n");
    }

    #[test]
    fn trailing_empty_cells_leave_padding() {
        assert_eq!(describe("  Type \tStatus\n  Ready \tTrue \n"), "  Type    Status\n  Ready   True \n");
    }
}
