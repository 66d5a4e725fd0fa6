#include "match/match_page.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace gb::match {

namespace {

// 64 characters, a8..h8 first, then down to a1..h1; FEN letters, '.' empty.
std::string board_string(const Position& pos) {
  std::string s(64, '.');
  for (int rank = 7; rank >= 0; --rank)
    for (int file = 0; file < 8; ++file) {
      Piece p = pos.piece_on(Square(rank * 8 + file));
      if (p == Piece::None) continue;
      s[std::size_t((7 - rank) * 8 + file)] = piece_char(p);
    }
  return s;
}

nlohmann::json game_json(const PageGame& g) {
  nlohmann::json boards = nlohmann::json::array();
  for (const Position& p : g.positions) boards.push_back(board_string(p));
  return {{"name", g.name},
          {"boards", boards},
          {"sans", g.sans},
          {"first_move", g.positions.front().fullmove_number()},
          {"black_first", g.positions.front().side_to_move() == Color::Black}};
}

std::string escape_html(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// "12. " before White's move from this position, "12... " before Black's.
std::string move_label(const Position& p) {
  return std::to_string(p.fullmove_number()) + (p.side_to_move() == Color::White ? ". " : "... ");
}

// The move of g from ply p with its number; "" where g has no move there.
std::string numbered_move(const PageGame& g, int p) {
  if (p < 0 || p >= int(g.sans.size())) return "";
  return move_label(g.positions[std::size_t(p)]) + g.sans[std::size_t(p)];
}

// The move list, written here so that the page says what each row stands
// for: row data-step="s" holds the moves that lead to step s (ply s of the
// submitted game, ply s + stored_start - submitted_start of the stored one).
// The script marks the row of the step shown: the move just played.
std::string move_rows(const PageGame& sub, const PageGame& sto, const MatchRun& run) {
  const int d = run.stored_start_ply - run.submitted_start_ply;
  const int n_sub = int(sub.positions.size()) - 1, n_sto = int(sto.positions.size()) - 1;
  const int lo = std::min(0, -d), hi = std::max(n_sub, n_sto - d);
  std::string rows;
  for (int s = lo + 1; s <= hi; ++s) {
    // Both moves of the row go from one shared position to the next.
    bool in_run = s > run.submitted_start_ply && s <= run.submitted_end_ply();
    rows += "<tr data-step=\"" + std::to_string(s) + "\"" + (in_run ? " class=\"run\"" : "") +
            "><td class=\"m1\">" + escape_html(numbered_move(sub, s - 1)) + "</td><td class=\"m2\">" +
            escape_html(numbered_move(sto, s - 1 + d)) + "</td></tr>\n";
  }
  return rows;
}

// The timeline's frame: the lane names from their first letter (x=4), clipped
// left of the lanes; the script draws the lanes into #lanes.
std::string timeline(const PageGame& sub, const PageGame& sto) {
  auto name = [](const PageGame& g, const char* colour, int y) {
    return "<text class=\"lane-name\" x=\"4\" y=\"" + std::to_string(y) + "\" font-size=\"12\" fill=\"" +
           colour + "\" clip-path=\"url(#lane-names)\">" + escape_html(g.name) + "</text>";
  };
  return "<svg id=\"timeline\" width=\"800\" height=\"90\"><defs><clipPath id=\"lane-names\"><rect x=\"0\" "
         "y=\"0\" width=\"162\" height=\"90\"/></clipPath></defs>" +
         name(sub, "#1e5fd8", 20) + name(sto, "#d26a00", 50) + "<g id=\"lanes\"></g></svg>\n";
}

constexpr const char* kStyle = R"CSS(
body{font-family:"DejaVu Sans",system-ui,sans-serif;margin:16px;color:#222;background:#fafafa}
h1{font-size:18px;margin:0 0 6px}
.sub{color:#1e5fd8}.sto{color:#d26a00}
.main{display:flex;gap:20px;align-items:flex-start}
#caption{font-size:15px;margin:6px 0}
.controls button{font-size:15px;margin-right:4px;padding:2px 10px}
#list{max-height:430px;overflow-y:auto;border:1px solid #ccc;background:#fff;font-size:13px}
#list table{border-collapse:collapse}
#list th{position:sticky;top:0;background:#eee;padding:3px 8px;text-align:left}
#list td{padding:1px 8px;cursor:pointer;white-space:nowrap}
#list td.m1{border-left:4px solid #1e5fd8}#list td.m2{border-left:4px solid #d26a00}
#list tr.run td{background:#e8f4e0}#list tr.cur td{background:#ffe98a}
.legend span{display:inline-block;width:12px;height:12px;vertical-align:middle;margin:0 4px 0 10px}
)CSS";

constexpr const char* kScript = R"JS(
const A='rgba(30,95,216,0.55)',B='rgba(210,106,0,0.60)',NS='http://www.w3.org/2000/svg';
const GLYPH={k:'\u265A',q:'\u265B',r:'\u265C',b:'\u265D',n:'\u265E',p:'\u265F'};
const d=D.run.stored_start-D.run.submitted_start;
const nSub=D.sub.boards.length-1,nSto=D.sto.boards.length-1;
const lo=Math.min(0,-d),hi=Math.max(nSub,nSto-d);
const runLo=D.run.submitted_start,runHi=D.run.submitted_start+D.run.length-1;
const L=170,W=620;  // the timeline: lane names left of x=L, the lanes W wide
let step=runLo;
const fromHash=location.hash.match(/step=(-?\d+)/);if(fromHash)step=Math.max(lo,Math.min(hi,+fromHash[1]));
function el(tag,attrs,parent){const e=document.createElementNS(NS,tag);for(const k in attrs)e.setAttribute(k,attrs[k]);if(parent)parent.appendChild(e);return e;}
function clampPly(p,n){return Math.max(0,Math.min(n,p));}
function piece(svg,c,x,y,size){if(c==='.')return;const w=c===c.toUpperCase();
  const t=el('text',{x:x,y:y,'font-size':size,'text-anchor':'middle','dominant-baseline':'central',
    fill:w?'#fff':'#111',stroke:w?'#111':'none','stroke-width':w?1.2:0,
    'font-family':'DejaVu Sans,Segoe UI Symbol,sans-serif'},svg);t.textContent=GLYPH[c.toLowerCase()];}
function draw(){
  const sp=step,tp=step+d,spc=clampPly(sp,nSub),tpc=clampPly(tp,nSto);
  const a=D.sub.boards[spc],b=D.sto.boards[tpc];
  const svg=document.getElementById('board');svg.innerHTML='';const S=52;
  let differ=0;
  for(let i=0;i<64;i++){const x=(i%8)*S,y=Math.floor(i/8)*S;const light=((i%8)+Math.floor(i/8))%2===0;
    el('rect',{x:x,y:y,width:S,height:S,fill:light?'#f0d9b5':'#b58863'},svg);
    const ca=a[i],cb=b[i];
    if(ca===cb){piece(svg,ca,x+S/2,y+S/2+2,S*0.78);continue;}
    differ++;
    if(ca!=='.'&&cb!=='.'){
      el('polygon',{points:`${x},${y} ${x+S},${y} ${x},${y+S}`,fill:A},svg);
      el('polygon',{points:`${x+S},${y} ${x+S},${y+S} ${x},${y+S}`,fill:B},svg);
      piece(svg,ca,x+S*0.3,y+S*0.32,S*0.5);piece(svg,cb,x+S*0.7,y+S*0.7,S*0.5);
    }else if(ca!=='.'){el('rect',{x:x,y:y,width:S,height:S,fill:A},svg);piece(svg,ca,x+S/2,y+S/2+2,S*0.78);}
    else{el('rect',{x:x,y:y,width:S,height:S,fill:B},svg);piece(svg,cb,x+S/2,y+S/2+2,S*0.78);}
  }
  for(let f=0;f<8;f++){const t=el('text',{x:f*S+S-8,y:8*S-4,'font-size':10,fill:'#333'},svg);t.textContent='abcdefgh'[f];}
  for(let r=0;r<8;r++){const t=el('text',{x:2,y:r*S+11,'font-size':10,fill:'#333'},svg);t.textContent=8-r;}
  const inRun=sp>=runLo&&sp<=runHi;
  const pl=(p,n)=>p<0||p>n?'—':p;
  document.getElementById('caption').textContent=
    'Ply '+pl(sp,nSub)+' / '+pl(tp,nSto)+' · '+(differ===0?'the positions are the same':'the positions differ on '+differ+(differ===1?' square':' squares'))+(inRun?' · in the run':'');
  drawTimeline();markList();
}
// The lane names stand in the page from their first letter (x=4); one too long for the space left of
// the lanes is shortened at its end, as measured in the browser's font.
function fitLaneNames(){for(const t of document.querySelectorAll('#timeline text.lane-name')){
  while(t.getComputedTextLength()>L-14&&t.textContent.length>2)t.textContent=t.textContent.slice(0,-2)+'…';}}
function drawTimeline(){
  const svg=document.getElementById('timeline'),g=document.getElementById('lanes');g.innerHTML='';
  const span=Math.max(1,hi-lo),X=p=>L+(p-lo)/span*W;
  el('rect',{x:X(runLo)-3,y:4,width:Math.max(6,X(runHi)-X(runLo)+6),height:60,fill:'#cfe8c0',stroke:'#5a9a3a'},g);
  const lanes=[[0,nSub,'#1e5fd8',16],[-d,nSto-d,'#d26a00',46]];
  for(const [from,to,col,y] of lanes)
    el('line',{x1:X(from),y1:y,x2:X(to),y2:y,stroke:col,'stroke-width':8,'stroke-linecap':'round'},g);
  const rl=el('text',{x:(X(runLo)+X(runHi))/2,y:80,'text-anchor':'middle','font-size':11,fill:'#3d7a22'},g);
  rl.textContent='run: '+D.run.length+' positions (plies '+runLo+'–'+runHi+' and '+(runLo+d)+'–'+(runHi+d)+')';
  el('line',{x1:X(step),y1:0,x2:X(step),y2:68,stroke:'#c00','stroke-width':2},g);
  svg.onclick=e=>{const r=svg.getBoundingClientRect();const p=Math.round(lo+(e.clientX-r.left-L)/W*span);go(p);};
}
// A row of the move list holds the moves that lead to its data-step: the row marked is the move just
// played, the one that led to the board shown (none at the first step).
function markList(){for(const r of document.querySelectorAll('#rows tr.cur'))r.classList.remove('cur');
  const r=document.querySelector('#rows tr[data-step="'+step+'"]');if(r){r.classList.add('cur');r.scrollIntoView({block:'nearest'});}}
function go(s){step=Math.max(lo,Math.min(hi,s));draw();}
document.addEventListener('keydown',e=>{if(e.key==='ArrowRight')go(step+1);else if(e.key==='ArrowLeft')go(step-1);
  else if(e.key==='Home')go(lo);else if(e.key==='End')go(hi);});
for(const tr of document.querySelectorAll('#rows tr'))tr.onclick=()=>go(+tr.dataset.step);
fitLaneNames();draw();
)JS";

}  // namespace

std::string match_page(const PageGame& submitted, const PageGame& stored, const MatchRun& run) {
  nlohmann::json data = {{"sub", game_json(submitted)},
                         {"sto", game_json(stored)},
                         {"run",
                          {{"submitted_start", run.submitted_start_ply},
                           {"stored_start", run.stored_start_ply},
                           {"length", run.length}}}};
  std::string json = data.dump();
  for (std::size_t at = json.find("</"); at != std::string::npos; at = json.find("</", at + 2))
    json.insert(at + 1, "\\");
  std::string html;
  html +=
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>graphbook "
      "match</title><style>";
  html += kStyle;
  html += "</style></head><body>\n<h1><span class=\"sub\">" + escape_html(submitted.name) +
          "</span> &nbsp;and&nbsp; <span class=\"sto\">" + escape_html(stored.name) + "</span></h1>\n";
  html +=
      "<div class=\"legend\">Squares where the positions differ:<span "
      "style=\"background:rgba(30,95,216,.55)\">"
      "</span>a piece of the submitted game<span style=\"background:rgba(210,106,0,.6)\"></span>a piece of "
      "the "
      "stored game; split where each stands a different piece</div>\n";
  html +=
      "<div id=\"caption\"></div>\n<div class=\"main\"><div><svg id=\"board\" width=\"416\" height=\"416\" "
      "viewBox=\"0 0 416 416\"></svg>\n<div class=\"controls\"><button onclick=\"go(lo)\">|&#x25C0;</button>"
      "<button onclick=\"go(step-1)\">&#x25C0;</button><button onclick=\"go(step+1)\">&#x25B6;</button>"
      "<button onclick=\"go(hi)\">&#x25B6;|</button> (or the arrow keys)</div></div>\n";
  html += "<div id=\"list\"><table><thead><tr><th class=\"sub\">" + escape_html(submitted.name) +
          "</th><th class=\"sto\">" + escape_html(stored.name) + "</th></tr></thead><tbody id=\"rows\">\n" +
          move_rows(submitted, stored, run) + "</tbody></table></div></div>\n" + timeline(submitted, stored) +
          "<script>const D=" + json + ";" + kScript + "</script></body></html>\n";
  return html;
}

}  // namespace gb::match
